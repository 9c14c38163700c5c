/**
 * One request as a one-server command sends it: under its own deadline from the clock, with its
 * progress shown (and erased while the user is asked), and ended by an interrupt.
 */
import type { ProgressParams } from "../index.js";
import { Clock } from "./clock.js";
import type { AskingHooks } from "./input.js";
import { ProgressDisplay, type ProgressMode } from "./progress.js";

/** The options a request function is given: the library's part of the clock. */
export interface RequestOptions {
  timeout: number;
  signal: AbortSignal;
  onProgress: (p: ProgressParams) => void;
}

/** Runs one request (`send`) under the clock; resolves or rejects as it does. */
export type Requester = <T>(send: (options: RequestOptions) => Promise<T>) => Promise<T>;

export interface Requests {
  request: Requester;
  /** For the input handler: the deadline stops and the progress bar is erased while asking. */
  asking: AskingHooks;
}

export function requests(
  clock: Clock,
  mode: ProgressMode,
  write: (text: string) => void,
  interrupt: AbortSignal | undefined,
): Requests {
  const shown = new Set<ProgressDisplay>();
  const request: Requester = async (send) => {
    const deadline = clock.request();
    const progress = new ProgressDisplay(mode, write);
    shown.add(progress);
    try {
      return await send({
        timeout: Clock.untimed,
        signal: interrupt ? AbortSignal.any([deadline.signal, interrupt]) : deadline.signal,
        onProgress: (p) => {
          deadline.renew();
          progress.update(p);
        },
      });
    } finally {
      deadline.dispose();
      progress.clear();
      shown.delete(progress);
    }
  };
  const asking: AskingHooks = {
    begin: () => {
      for (const p of shown) p.clear();
      clock.asking.begin();
    },
    end: () => clock.asking.end(),
  };
  return { request, asking };
}
