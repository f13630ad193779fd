// Times beautiful-mermaid's text -> Unicode text drawing (colorMode 'none', like Nereid's
// plain text) on each file given: `node _beautiful_mermaid.mjs RUNS BUDGET_MS FILE...`.
// Prints one JSON line per file: {"file", "median_ms", "best_ms", "runs"} or {"file", "error"}.
// A file stops being repeated once its runs have taken BUDGET_MS (at least 1 run after a
// warm-up run, so the JIT has compiled the code paths the timed runs take).
import { renderMermaidAscii } from 'beautiful-mermaid';
import { readFileSync } from 'fs';

const [runsArg, budgetArg, ...files] = process.argv.slice(2);
const runs = Number(runsArg);
const budget = Number(budgetArg);
for (const file of files) {
  const text = readFileSync(file, 'utf8');
  try {
    const warm = performance.now();
    renderMermaidAscii(text, { colorMode: 'none' });
    const samples = [];
    let spent = performance.now() - warm;
    while (samples.length < runs && (samples.length === 0 || spent < budget)) {
      const t0 = performance.now();
      renderMermaidAscii(text, { colorMode: 'none' });
      const ms = performance.now() - t0;
      samples.push(ms);
      spent += ms;
    }
    samples.sort((a, b) => a - b);
    const median = samples.length % 2
      ? samples[(samples.length - 1) / 2]
      : (samples[samples.length / 2 - 1] + samples[samples.length / 2]) / 2;
    console.log(JSON.stringify({ file, median_ms: median, best_ms: samples[0], runs: samples.length }));
  } catch (err) {
    console.log(JSON.stringify({ file, error: String(err && err.message || err) }));
  }
}
