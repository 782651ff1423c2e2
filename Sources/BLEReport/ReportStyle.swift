/// The report's stylesheet, inlined into the page.
enum ReportStyle {
    static let css = #"""
:root { --fg:#1d2330; --muted:#5f6b7a; --line:#d8dde5; --bg:#ffffff; --panel:#f6f8fa;
  --error:#c62828; --warning:#d97706; --note:#2563eb; --local:#4c78a8; --remote:#59a14f;
  --link_loss:#e15759; --open:#9aa3ad; --lost_track:#f28e2b; --scan:#b07aa1; --accent:#0f766e; }
* { box-sizing: border-box; }
body { margin:0; font:14px/1.45 -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color:var(--fg); background:var(--bg); }
main { max-width:1400px; margin:0 auto; padding:16px 24px 48px; }
h1 { font-size:20px; margin:8px 0 12px; }
h2 { font-size:16px; margin:28px 0 10px; padding-bottom:4px; border-bottom:1px solid var(--line); }
h3 { font-size:14px; margin:0 0 6px; }
code, pre, .mono { font-family: ui-monospace, "SF Mono", Menlo, Consolas, monospace; font-size:12px; }
pre { background:var(--panel); border:1px solid var(--line); border-radius:6px; padding:8px 10px; overflow:auto; }
.capture { margin-bottom:40px; }
.capture > h2.capture-title { font-size:18px; border:none; margin-top:8px; }
.meta { display:grid; grid-template-columns: repeat(auto-fill, minmax(190px, 1fr)); gap:8px; }
.meta div { background:var(--panel); border:1px solid var(--line); border-radius:6px; padding:6px 10px; }
.meta b { display:block; font-size:11px; text-transform:uppercase; letter-spacing:.04em; color:var(--muted); font-weight:600; }
.meta span { font-size:15px; overflow-wrap:anywhere; }
.meta div.wide { grid-column: span 2; }
.badge { display:inline-block; border-radius:10px; padding:0 8px; font-size:12px; font-weight:600; color:#fff; margin-right:4px; }
.badge.error { background:var(--error); } .badge.warning { background:var(--warning); } .badge.note { background:var(--note); }
.badge.zero { background:#c9ced6; }
.damage { color:var(--error); font-weight:600; }
nav.toc { margin:12px 0 0; font-size:13px; } nav.toc a { margin-right:14px; color:var(--accent); text-decoration:none; }
.toolbar { display:flex; gap:12px; align-items:center; font-size:12px; color:var(--muted); margin-bottom:4px; flex-wrap:wrap; }
.toolbar button { font:inherit; padding:2px 8px; border:1px solid var(--line); background:#fff; border-radius:4px; cursor:pointer; }
.toolbar .sel { color:var(--fg); font-weight:600; }
svg.chart { display:block; width:100%; background:#fff; user-select:none; }
svg text { font-size:11px; fill:var(--fg); }
svg .axis line, svg .axis path { stroke:#9aa3ad; } svg .axis text { fill:var(--muted); font-size:10px; }
svg .grid line { stroke:#eef1f5; }
svg .lane-label { font-size:11px; }
svg .lane-bg { fill:#fafbfc; } svg .lane-bg.alt { fill:#f3f5f8; }
svg .brush { fill:rgba(15,118,110,.15); stroke:var(--accent); }
.grid2 { display:grid; grid-template-columns: 1fr 1fr; gap:16px; }
@media (max-width: 1000px) { .grid2 { grid-template-columns: 1fr; } }
.card { border:1px solid var(--line); border-radius:8px; padding:10px 12px; background:#fff; }
.card .hint { font-size:12px; color:var(--muted); margin:0 0 6px; }
.legend { font-size:12px; color:var(--muted); display:flex; flex-wrap:wrap; gap:10px; margin-top:4px; }
.legend i { display:inline-block; width:10px; height:10px; border-radius:2px; margin-right:4px; vertical-align:-1px; }
details.conn { border:1px solid var(--line); border-radius:8px; margin:8px 0; background:#fff; }
details.conn > summary { padding:8px 12px; cursor:pointer; list-style:none; display:flex; gap:14px; flex-wrap:wrap; align-items:center; }
details.conn > summary::before { content:"▸"; color:var(--muted); } details.conn[open] > summary::before { content:"▾"; }
details.conn .body { padding:0 12px 12px; overflow-x:auto; }
.pill { display:inline-block; border-radius:4px; padding:0 6px; font-size:12px; color:#fff; }
.seq .row-hit { fill:transparent; } .seq .row:hover .row-hit { fill:#f3f6fa; }
.seq .hl .row-hit { fill:#fff3bf; }
.seq .err text.op, .seq .err text.detail { fill:var(--error); } .seq .err line.msg { stroke:var(--error); }
.seq line.msg { stroke:#334155; stroke-width:1.4; } .seq line.ret { stroke:#94a3b8; stroke-dasharray:4 3; }
.seq .band rect.band { fill:url(#stripes); stroke:#94a3b8; }
.seq .toggle { fill:var(--accent); cursor:pointer; font-weight:600; }
.seq .lifeline { stroke:#cbd5e1; stroke-dasharray:2 3; }
.seq .linkbox { fill:#eef2f7; stroke:#cbd5e1; }
.seq .omitted rect { fill:#fff; stroke:#cbd5e1; stroke-dasharray:3 3; }
ul.tree { list-style:none; padding-left:18px; margin:4px 0; } ul.tree li { margin:2px 0; }
ul.tree .h { color:var(--muted); font-size:12px; }
.prop { display:inline-block; font-size:11px; border:1px solid var(--line); border-radius:3px; padding:0 4px; margin-left:3px; color:#334155; background:var(--panel); }
.finding { border:1px solid var(--line); border-left:4px solid var(--note); border-radius:6px; padding:8px 12px; margin:10px 0; list-style:none; }
.finding.error { border-left-color:var(--error); } .finding.warning { border-left-color:var(--warning); }
.finding .msg { font-weight:600; } .finding .where { font-size:12px; color:var(--muted); }
.finding a { color:var(--accent); cursor:pointer; }
.finding details summary { cursor:pointer; font-size:12px; color:var(--accent); }
ul.findings { padding:0; }
table.counts { border-collapse:collapse; font-size:12px; } table.counts td { padding:1px 10px 1px 0; }
.empty { color:var(--muted); font-style:italic; }
.error-banner { background:#fdecea; color:var(--error); border:1px solid var(--error); padding:8px 12px; border-radius:6px; margin:12px 0; }
"""#
}
