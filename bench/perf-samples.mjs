// The samples of `perf script` output that belong to the process perf started (its threads and GC
// helpers included; perf follows children too, and the peer it spawned is not measured): each as
// its stack, innermost frame first, symbol names without addresses, offsets or DSOs.

/** Yields each sample's frames for the first process in `text` (the output of `perf script`). */
export function* mainProcessSamples(text) {
  let main;
  for (const block of text.split("\n\n")) {
    const pid = /^\S+\s+(\d+)\//.exec(block.trimStart())?.[1];
    main ??= pid;
    if (pid !== main) continue;
    const frames = block
      .split("\n")
      .filter((l) => /^\s+[0-9a-f]+ /.test(l))
      .map((l) =>
        l
          .trim()
          .replace(/^[0-9a-f]+ /, "")
          .replace(/ \(.*\)$/, "")
          .replace(/\+0x[0-9a-f]+$/, ""),
      );
    if (frames.length > 0) yield frames;
  }
}
