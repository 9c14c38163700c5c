/** Every command a target runs, by name: the runner looks the command line's up here. */
import type { Command, CommandName } from "../invocation.js";
import { call } from "./call.js";
import type { CommandModule, StayingCommand } from "./command.js";
import { info } from "./info.js";
import { prompt } from "./prompt.js";
import { prompts } from "./prompts.js";
import { read } from "./read.js";
import { resources } from "./resources.js";
import { search } from "./search.js";
import { tools } from "./tools.js";
import { watch } from "./watch.js";

type Modules = {
  [N in CommandName]:
    | CommandModule<Extract<Command, { name: N }>>
    | StayingCommand<Extract<Command, { name: N }>>;
};

const MODULES: Modules = { info, tools, call, resources, read, prompts, prompt, watch, search };

/** The module for a command (typed for any command: the runner hands it that same command). */
export function moduleFor(command: Command): CommandModule | StayingCommand {
  return MODULES[command.name] as CommandModule | StayingCommand;
}
