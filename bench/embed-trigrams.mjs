// A stand-in embed hook for `node bench/tool-search-eval.mjs --embed bench/embed-trigrams.mjs`:
// each text becomes a 512-dimension vector of hashed character trigrams of its lower-cased words.
// It runs locally and deterministically, with nothing to download, so it checks the eval's
// blended path end to end; it knows no more than the words' spelling (no meaning), so its
// figures are a floor for the blend, not what a real embedding model gives.
const DIM = 512;

function hash(s) {
  // FNV-1a, 32 bits.
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export default async function embed(texts) {
  return texts.map((text) => {
    const v = new Array(DIM).fill(0);
    for (const w of text.toLowerCase().split(/[^a-z0-9]+/)) {
      if (w.length < 3) continue;
      const padded = ` ${w} `;
      for (let i = 0; i + 3 <= padded.length; i++) v[hash(padded.slice(i, i + 3)) % DIM] += 1;
    }
    return v;
  });
}
