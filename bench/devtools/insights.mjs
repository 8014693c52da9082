// Print, as JSON, the numbers Chrome DevTools' trace engine computes for a trace file, so
// tests/bench/trace_insights_vs_devtools.py can set ours beside them. Run with Node and the npm
// package of the engine installed somewhere (its directory as the first argument):
//   node bench/devtools/insights.mjs /tmp/engine/node_modules/@paulirish/trace_engine trace.json
import fs from 'node:fs';
import path from 'node:path';
import {pathToFileURL} from 'node:url';

// The engine uses iterator helpers (Node 22+); give Node 20 the few it calls.
const IteratorProto = Object.getPrototypeOf(Object.getPrototypeOf([][Symbol.iterator]()));
const helpers = {
  toArray() { return [...this]; },
  find(fn) { for (const v of this) { if (fn(v)) return v; } return undefined; },
  some(fn) { for (const v of this) { if (fn(v)) return true; } return false; },
  every(fn) { for (const v of this) { if (!fn(v)) return false; } return true; },
  forEach(fn) { for (const v of this) fn(v); },
  reduce(fn, init) { let acc = init; for (const v of this) acc = fn(acc, v); return acc; },
  * map(fn) { for (const v of this) yield fn(v); },
  * filter(fn) { for (const v of this) { if (fn(v)) yield v; } },
  * flatMap(fn) { for (const v of this) yield* fn(v); },
};
for (const [name, fn] of Object.entries(helpers)) {
  if (!IteratorProto[name]) Object.defineProperty(IteratorProto, name, {value: fn, writable: true, configurable: true});
}

const [engineDir, tracePath] = process.argv.slice(2);
const load = rel => import(pathToFileURL(path.join(engineDir, rel)).href);
const {polyfillDOMRect} = await load('analyze-trace.mjs');
const Trace = await load('models/trace/trace.js');
polyfillDOMRect();

const json = JSON.parse(fs.readFileSync(tracePath, 'utf8'));
const model = Trace.TraceModel.Model.createWithAllHandlers();
await model.parse(json.traceEvents ?? json);
const parsed = model.parsedTrace();
const ms = us => (us === undefined || us === null ? null : Math.round(us / 100) / 10);

const out = {insightSets: []};
for (const set of parsed.insights.values()) {
  const m = set.model;
  const lcp = m.LCPBreakdown;
  const parts = lcp?.subparts ?? {};
  const entry = {
    url: set.url?.toString(),
    lcpMs: lcp?.lcpMs ?? null,
    lcpBreakdown: Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, ms(v.range)])),
    lcpRequest: lcp?.lcpRequest?.args.data.url ?? null,
    lcpNodeId: lcp?.lcpEvent?.args.data.nodeId ?? null,
    renderBlocking: (m.RenderBlocking?.renderBlockingRequests ?? []).map(r => ({
      url: r.args.data.url, durationMs: ms(r.dur), renderBlocking: r.args.data.renderBlocking,
    })),
    cls: m.CLSCulprits?.clusters?.length ? Math.max(...m.CLSCulprits.clusters.map(c => c.clusterCumulativeScore)) : 0,
    layoutShifts: (m.CLSCulprits?.clusters ?? []).flatMap(c => c.events.map(e => ({
      tsMs: ms(e.ts - (set.navigation?.ts ?? 0)), score: e.args.data.weighted_score_delta,
    }))),
    culprits: (() => {
      const clusters = m.CLSCulprits?.clusters ?? [];
      if (!clusters.length) return null;
      const worst = clusters.reduce((a, b) => (b.clusterCumulativeScore > a.clusterCumulativeScore ? b : a));
      const causes = m.CLSCulprits.topCulpritsByCluster?.get(worst) ?? [];
      return [...new Set(causes.map(c => String(c.description?.i18nId ?? c.type)))].sort().join(', ') || null;
    })(),
    thirdParties: (m.ThirdParties?.entitySummaries ?? []).map(s => ({
      entity: s.entity.name, mainThreadMs: Math.round(s.mainThreadTime * 10) / 10, transferSize: s.transferSize,
    })),
  };
  out.insightSets.push(entry);
}
// Long tasks: top-level main-thread tasks over 50 ms of the main frame's renderer.
const longTasks = [];
for (const proc of parsed.data.Renderer.processes.values()) {
  if (!proc.isOnMainFrame) continue;
  for (const thread of proc.threads.values()) {
    if (thread.name !== 'CrRendererMain') continue;
    for (const e of thread.entries) {
      if (e.name === 'RunTask' && e.dur > 50_000) longTasks.push(ms(e.dur));
    }
  }
}
out.longTasksMs = longTasks.sort((a, b) => b - a);
console.log(JSON.stringify(out, null, 1));
