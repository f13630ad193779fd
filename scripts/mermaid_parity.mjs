import { JSDOM } from "jsdom";
import fs from "node:fs";
const dom = new JSDOM("<!doctype html><html><body></body></html>", { pretendToBeVisual: true });
globalThis.window = dom.window; globalThis.document = dom.window.document;
globalThis.DOMParser = dom.window.DOMParser; globalThis.Element = dom.window.Element;
globalThis.Option = dom.window.Option;
try { globalThis.navigator = dom.window.navigator; } catch {}
const { default: mermaid } = await import("mermaid");
mermaid.initialize({ startOnLoad: false });
const out = {};
for (const file of process.argv.slice(2)) {
  const text = fs.readFileSync(file, "utf8");
  try {
    const diagram = await mermaid.mermaidAPI.getDiagramFromText(text);
    const db = diagram.db;
    const type = diagram.type;
    if (db.getVertices) {
      const v = db.getVertices();
      const nodes = [...(v instanceof Map ? v.values() : Object.values(v))].map(n => ({ id: n.id, text: n.text, type: n.type }));
      const edges = db.getEdges().map(e => ({ start: e.start, end: e.end, text: e.text }));
      const subgraphs = db.getSubGraphs().map(s => ({ id: s.id, title: s.title, nodes: s.nodes }));
      out[file] = { ok: true, type, nodes, edges, subgraphs };
    } else if (db.getActors) {
      const a = db.getActors();
      const actors = [...(a instanceof Map ? a.keys() : Object.keys(a))];
      const messages = db.getMessages().filter(m => m.from && m.to && m.placement === undefined).map(m => ({ from: m.from, to: m.to, text: m.message }));
      const notes = db.getMessages().filter(m => m.placement !== undefined && m.type === 2).length;
      out[file] = { ok: true, type, actors, messages, notes };
    } else out[file] = { ok: true, type };
  } catch (e) {
    out[file] = { ok: false, error: String(e.message || e).slice(0, 300) };
  }
}
process.stdout.write(JSON.stringify(out));
