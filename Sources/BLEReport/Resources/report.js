"use strict";
(function () {
  const NS = "http://www.w3.org/2000/svg";
  const body = document.body;
  function fail(msg) {
    body.setAttribute("data-error", String(msg));
    const b = document.createElement("div");
    b.className = "error-banner";
    b.textContent = "The report's script failed: " + msg;
    document.getElementById("report").prepend(b);
  }
  window.addEventListener("error", function (e) { fail(e.message || "error"); });

  // ---- small helpers -------------------------------------------------------------------
  function h(tag, attrs, parent, text) {
    const e = document.createElement(tag);
    if (attrs) for (const k in attrs) if (attrs[k] !== undefined && attrs[k] !== null) e.setAttribute(k, attrs[k]);
    if (text !== undefined && text !== null) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }
  function s(tag, attrs, parent, text) {
    const e = document.createElementNS(NS, tag);
    if (attrs) for (const k in attrs) if (attrs[k] !== undefined && attrs[k] !== null) e.setAttribute(k, attrs[k]);
    if (text !== undefined && text !== null) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }
  function title(parent, text) { s("title", null, parent, text); }
  function clear(e) { while (e.firstChild) e.removeChild(e.firstChild); }
  function sec(us) { return us / 1e6; }
  function fmtS(us) {
    const v = us / 1e6, a = Math.abs(v);
    return (a >= 100 ? v.toFixed(1) : a >= 1 ? v.toFixed(3) : v.toFixed(4)) + " s";
  }
  function fmtDur(us) {
    const v = Math.abs(us);
    if (v < 1000) return us + " µs";
    if (v < 1e6) return (us / 1000).toFixed(v < 1e4 ? 2 : 1) + " ms";
    if (v < 120e6) return (us / 1e6).toFixed(2) + " s";
    return (us / 60e6).toFixed(1) + " min";
  }
  function fmtNum(n) { return Number(n).toLocaleString("en-US"); }
  function fmtBytes(n) {
    if (n < 1000) return n.toFixed(n % 1 ? 1 : 0) + " B";
    if (n < 1e6) return (n / 1000).toFixed(n < 1e4 ? 1 : 0) + " kB";
    return (n / 1e6).toFixed(2) + " MB";
  }
  function iso(us) {
    if (us === null || us === undefined) return "—";
    const ms = Math.floor(us / 1000), d = new Date(ms);
    if (isNaN(d.getTime())) return String(us);
    const frac = String(((us % 1e6) + 1e6) % 1e6).padStart(6, "0");
    return d.toISOString().slice(0, 19).replace("T", " ") + "." + frac + " UTC";
  }
  function niceTicks(lo, hi, n) {
    if (!(hi > lo)) return [lo];
    const raw = (hi - lo) / Math.max(1, n), mag = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 5, 10].map(m => m * mag).find(x => x >= raw) || raw;
    const out = [];
    for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9 && out.length < 50; v += step) out.push(v);
    return out;
  }
  function scale(d0, d1, r0, r1) {
    const k = d1 === d0 ? 0 : (r1 - r0) / (d1 - d0);
    const f = v => r0 + (v - d0) * k;
    f.inv = p => k === 0 ? d0 : d0 + (p - r0) / k;
    return f;
  }
  const PALETTE = ["#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2", "#eeca3b", "#b279a2", "#ff9da6", "#9d755d", "#bab0ac"];
  const END_COLOUR = { local: "var(--local)", remote: "var(--remote)", link_loss: "var(--link_loss)", open: "var(--open)", lost_track: "var(--lost_track)" };
  const END_LABEL = { local: "ended by this host", remote: "ended by the peer", link_loss: "link lost", open: "still open at the end", lost_track: "ended without Disconnection Complete" };
  const SEV_COLOUR = { error: "var(--error)", warning: "var(--warning)", note: "var(--note)" };

  function axisX(g, x, lo, hi, y, height, fmt) {
    const a = s("g", { class: "axis" }, g);
    s("line", { x1: x(lo), x2: x(hi), y1: y, y2: y }, a);
    for (const t of niceTicks(lo, hi, 8)) {
      const px = x(t);
      if (height) s("line", { x1: px, x2: px, y1: y - height, y2: y, class: "gridline", stroke: "#eef1f5" }, a);
      s("line", { x1: px, x2: px, y1: y, y2: y + 4 }, a);
      s("text", { x: px, y: y + 15, "text-anchor": "middle" }, a, fmt ? fmt(t) : t);
    }
  }
  function axisY(g, y, lo, hi, x, fmt) {
    const a = s("g", { class: "axis" }, g);
    s("line", { x1: x, x2: x, y1: y(lo), y2: y(hi) }, a);
    for (const t of niceTicks(lo, hi, 4)) {
      s("line", { x1: x - 4, x2: x, y1: y(t), y2: y(t) }, a);
      s("text", { x: x - 6, y: y(t) + 3, "text-anchor": "end" }, a, fmt ? fmt(t) : t);
    }
  }
  // A legend entry that shows or hides its series: `hidden` holds the keys switched off, the
  // entry is struck through while its series is off (state in the class and aria-pressed).
  function legendItem(leg, colour, label, key, hidden, redraw) {
    const e = h("span", { class: "series" + (hidden.has(key) ? " off" : ""), "data-series": key, role: "button", tabindex: 0, "aria-pressed": String(!hidden.has(key)) }, leg);
    h("i", { style: "background:" + colour }, e);
    e.append(label);
    const toggle = () => {
      if (hidden.has(key)) hidden.delete(key); else hidden.add(key);
      e.classList.toggle("off", hidden.has(key));
      e.setAttribute("aria-pressed", String(!hidden.has(key)));
      redraw();
    };
    e.addEventListener("click", toggle);
    e.addEventListener("keydown", ev => { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); toggle(); } });
    return e;
  }
  function secFmt(t) { const v = t / 1e6; return (Math.abs(v) >= 10 ? v.toFixed(0) : Math.abs(v) >= 1 ? v.toFixed(1) : v.toFixed(3)).replace(/\.0+$/, "") + " s"; }

  // ---- one capture ---------------------------------------------------------------------
  function renderCapture(m, ci, root, many) {
    const P = "c" + ci + "-";
    const art = h("article", { class: "capture", id: P + "capture", "data-connections": m.connections.length, "data-findings": m.findings.length }, root);
    const H = m.header;
    const name = H.path.split("/").pop();
    if (many) h("h2", { class: "capture-title" }, art, name);
    const end = Math.max(H.duration, 1);
    // conn: the connection chosen in the filter (its number), null for all.
    const state = { view: [0, end], full: [0, end], redraw: [], conn: null };
    const connShown = n => state.conn === null || n === state.conn;
    function setView(a, b) {
      let lo = Math.min(a, b), hi = Math.max(a, b);
      if (hi - lo < 50) { const mid = (lo + hi) / 2; lo = mid - 25; hi = mid + 25; }
      state.view = [Math.max(state.full[0], lo), Math.min(state.full[1], hi)];
      if (state.view[1] <= state.view[0]) state.view = state.full.slice();
      for (const f of state.redraw) f();
    }

    // Header.
    const meta = h("div", { class: "meta" }, art);
    function cell(label, value, cls) { const d = h("div", cls ? { class: cls } : null, meta); h("b", null, d, label); const v = h("span", null, d); if (value instanceof Node) v.appendChild(value); else v.textContent = value; return d; }
    cell("Capture", H.path, "wide");
    cell("Container", H.container || "—");
    cell("Frames", fmtNum(H.frames));
    cell("First frame", iso(H.firstTime));
    cell("Last frame", iso(H.lastTime));
    cell("Duration", fmtDur(H.duration));
    cell("Controllers", String(H.controllers));
    cell("Devices (advertisers)", fmtNum(H.devices) + (H.devicesCapped ? "+ (more not counted)" : ""));
    cell("Connections", fmtNum(H.connections));
    const sev = document.createElement("span");
    for (const k of ["error", "warning", "note"]) {
      const n = (H.findings || {})[k] || 0;
      h("span", { class: "badge " + (n ? k : "zero"), "data-severity": k, "data-count": n }, sev, n + " " + k + (n === 1 ? "" : "s"));
    }
    cell("Findings", sev);
    if (H.damage) cell("Damage", H.damage, "damage");
    if (H.error) cell("Error", H.error, "damage");
    if (H.scope) cell("Scope", H.scope + " (" + fmtNum(H.scopeEvents || 0) + " events)", "wide");
    const toc = h("nav", { class: "toc" }, art);
    for (const [id, label] of [["timeline", "Timeline"], ["plots", "Plots"], ["connections", "Connections"], ["diagnosis", "Diagnosis"], ["gatt", "GATT databases"], ["findings", "Findings"], ["notes", "Details"]]) {
      h("a", { href: "#" + P + id }, toc, label);
    }

    // ---- controls: search over the rows, one connection ----
    // Rows are the elements marked data-search-row (findings, connections, verdicts, GATT
    // databases, advertisers, event types); data-connection ties one to its connection.
    const ctl = h("div", { class: "toolbar controls" }, art);
    const search = h("input", { type: "search", placeholder: "Search rows…", "data-control": "search", "aria-label": "Search the report's rows" }, ctl);
    const searchCount = h("span", { class: "sel", "data-control": "search-count" }, ctl);
    const pick = h("select", { "data-control": "connection", "aria-label": "Show one connection" }, ctl);
    h("option", { value: "" }, pick, "All connections");
    for (const c of m.connections) {
      const handle = c.facts && c.facts.handle != null ? "handle 0x" + c.facts.handle.toString(16).padStart(4, "0") : "handle unknown";
      h("option", { value: String(c.number) }, pick, "#" + c.number + " " + handle + " " + (c.peer || "(unknown peer)") + (c.peerName ? " " + c.peerName : ""));
    }
    function applyFilters(redraw) {
      const q = search.value.trim().toLowerCase();
      let total = 0, shown = 0;
      for (const el of art.querySelectorAll("[data-search-row]")) {
        total++;
        const n = el.getAttribute("data-connection");
        const ok = (n === null || connShown(Number(n))) && (!q || el.textContent.toLowerCase().includes(q));
        el.hidden = !ok;
        if (ok) shown++;
      }
      searchCount.textContent = (q || state.conn !== null) ? shown + " of " + total + " rows" : total + " rows";
      searchCount.setAttribute("data-shown", shown);
      if (redraw !== false) for (const f of state.redraw) f();
    }
    search.addEventListener("input", () => applyFilters());
    pick.addEventListener("change", () => { state.conn = pick.value === "" ? null : Number(pick.value); applyFilters(); });
    state.applyFilters = applyFilters;

    // ---- timeline ----
    h("h2", { id: P + "timeline" }, art, "Timeline");
    const tb = h("div", { class: "toolbar" }, art);
    h("span", null, tb, "wheel: zoom · drag: pan · shift-drag or drag in the overview: select a range · double-click: whole capture");
    const selLabel = h("span", { class: "sel" }, tb);
    const reset = h("button", { type: "button" }, tb, "Whole capture");
    reset.addEventListener("click", () => setView(state.full[0], state.full[1]));
    const overview = s("svg", { class: "chart", "data-chart": "overview", height: 34 }, art);
    const tl = s("svg", { class: "chart", "data-chart": "timeline" }, art);
    const legend = h("div", { class: "legend" }, art);
    for (const k of ["local", "remote", "link_loss", "open", "lost_track"]) { const l = h("span", null, legend); h("i", { style: "background:" + END_COLOUR[k] }, l); l.append("connection " + END_LABEL[k]); }
    { const l = h("span", null, legend); h("i", { style: "background:var(--scan)" }, l); l.append("scanning"); }
    { const l = h("span", null, legend); h("i", { style: "background:#1d2330" }, l); l.append("notification density (ticks)"); }
    { const l = h("span", null, legend); h("i", { style: "background:var(--error)" }, l); l.append("finding (▼)"); }

    // Lanes: scanning, findings, then one per peer.
    const lanes = [];
    if (m.scanning.length) lanes.push({ label: "Scanning", kind: "scan" });
    lanes.push({ label: "Findings", kind: "findings" });
    const byPeer = new Map();
    for (const c of m.connections) {
      const key = c.peer || "(unknown peer)";
      if (!byPeer.has(key)) { const lane = { label: key + (c.peerName ? " " + c.peerName : ""), kind: "peer", conns: [] }; byPeer.set(key, lane); lanes.push(lane); }
      byPeer.get(key).conns.push(c);
    }
    const laneH = lanes.length > 40 ? 12 : 22, LEFT = 200, TOP = 6;
    const tlHeight = TOP + lanes.length * laneH + 26;
    tl.setAttribute("height", tlHeight);

    function width(svg) { return Math.max(600, svg.clientWidth || svg.parentNode.clientWidth || 1200); }
    function drawTimeline() {
      clear(tl);
      const W = width(tl), x = scale(state.view[0], state.view[1], LEFT, W - 10);
      const [v0, v1] = state.view;
      s("clipPath", { id: P + "clip" }, tl).appendChild(s("rect", { x: LEFT, y: 0, width: W - 10 - LEFT, height: tlHeight }));
      const lanesG = s("g", null, tl);
      const plot = s("g", { "clip-path": "url(#" + P + "clip)" }, tl);
      lanes.forEach((lane, i) => {
        const y = TOP + i * laneH;
        s("rect", { x: LEFT, y: y, width: W - 10 - LEFT, height: laneH, class: "lane-bg" + (i % 2 ? " alt" : "") }, lanesG);
        const t = s("text", { x: LEFT - 6, y: y + laneH / 2 + 4, "text-anchor": "end", class: "lane-label" }, lanesG, lane.label.length > 32 ? lane.label.slice(0, 31) + "…" : lane.label);
        title(t, lane.label);
        if (lane.kind === "scan") {
          for (const p of m.scanning) {
            if (p.end < v0 || p.start > v1) continue;
            const r = s("rect", { x: x(p.start), y: y + 4, width: Math.max(1, x(p.end) - x(p.start)), height: laneH - 8, fill: "var(--scan)", opacity: 0.8 }, plot);
            title(r, "scanning " + fmtS(p.start) + " – " + fmtS(p.end) + (p.active === true ? " (active)" : p.active === false ? " (passive)" : "") + (p.open ? ", still scanning at the end" : "") + ", frame " + p.startFrame + (p.filters ? "\noffloaded filters: " + p.filters : "") + (p.passesEverything ? "\nthe controller passed every advertisement (all-pass filter or filtering disabled)" : ""));
          }
        } else if (lane.kind === "findings") {
          m.findings.forEach((f, fi) => {
            if (f.t < v0 || f.t > v1) return;
            const px = x(f.t);
            const mk = s("path", { d: `M${px - 5},${y + 4} L${px + 5},${y + 4} L${px},${y + laneH - 4} Z`, fill: SEV_COLOUR[f.severity], class: "finding-marker", style: "cursor:pointer" }, plot);
            title(mk, f.rule + " " + f.title + ": " + f.message + " (frame " + f.frames[0] + ")");
            mk.addEventListener("click", () => { const el = document.getElementById(P + "finding-" + fi); if (el) el.scrollIntoView({ behavior: "smooth", block: "center" }); });
          });
        } else {
          for (const c of lane.conns) {
            if (c.end < v0 || c.start > v1 || !connShown(c.number)) continue;
            const x0 = x(c.start), x1 = Math.max(x0 + 2, x(c.end));
            const bar = s("rect", { x: x0, y: y + 3, width: x1 - x0, height: laneH - 6, rx: 2, fill: END_COLOUR[c.ended] || "var(--open)", opacity: 0.85, class: "conn-bar", style: "cursor:pointer" }, plot);
            title(bar, "#" + c.number + " " + (c.peer || "") + " " + fmtS(c.start) + " – " + fmtS(c.end) + ", " + END_LABEL[c.ended] + (c.reasonName ? " (" + c.reasonName + ")" : "") + ", " + fmtNum(c.notifications) + " notifications");
            bar.addEventListener("click", () => openConnection(c.number, null));
            if (c.density && c.density.buckets.length) {
              const d = c.density, max = Math.max(1, ...d.buckets);
              d.buckets.forEach((n, i) => {
                if (!n) return;
                const t0 = d.start + i * d.width, t1 = t0 + d.width;
                if (t1 < v0 || t0 > v1) return;
                const hh = Math.max(1, (laneH - 8) * 0.6 * n / max);
                s("rect", { x: x(t0), y: y + laneH - 3 - hh, width: Math.max(1, x(t1) - x(t0) - 0.5), height: hh, fill: "#1d2330", opacity: 0.35, "pointer-events": "none" }, plot);
              });
            }
          }
        }
      });
      axisX(tl, x, v0, v1, TOP + lanes.length * laneH + 2, lanes.length * laneH, secFmt);
      selLabel.textContent = (v0 > state.full[0] || v1 < state.full[1]) ? "selected " + fmtS(v0) + " – " + fmtS(v1) + " (" + fmtDur(v1 - v0) + ")" : "whole capture (" + fmtDur(state.full[1] - state.full[0]) + ")";
    }
    function drawOverview() {
      clear(overview);
      const W = width(overview), x = scale(state.full[0], state.full[1], LEFT, W - 10);
      s("rect", { x: LEFT, y: 2, width: W - 10 - LEFT, height: 30, class: "lane-bg alt" }, overview);
      s("text", { x: LEFT - 6, y: 21, "text-anchor": "end", class: "lane-label" }, overview, "overview");
      for (const p of m.scanning) s("rect", { x: x(p.start), y: 4, width: Math.max(1, x(p.end) - x(p.start)), height: 6, fill: "var(--scan)" }, overview);
      for (const c of m.connections) s("rect", { x: x(c.start), y: 12, width: Math.max(1, x(c.end) - x(c.start)), height: 10, fill: END_COLOUR[c.ended] || "var(--open)", opacity: 0.5 }, overview);
      for (const f of m.findings) s("rect", { x: x(f.t) - 1, y: 24, width: 2, height: 7, fill: SEV_COLOUR[f.severity] }, overview);
      s("rect", { x: x(state.view[0]), y: 2, width: Math.max(2, x(state.view[1]) - x(state.view[0])), height: 30, class: "brush" }, overview);
      overview._x = x;
    }
    state.redraw.push(drawTimeline, drawOverview);

    // Interaction: wheel zoom, drag pan, shift-drag brush on the timeline; drag brush on the overview.
    function pointerX(svg, ev) { const r = svg.getBoundingClientRect(); return ev.clientX - r.left; }
    tl.addEventListener("wheel", ev => {
      ev.preventDefault();
      const W = width(tl), x = scale(state.view[0], state.view[1], LEFT, W - 10);
      const t = x.inv(Math.max(LEFT, pointerX(tl, ev)));
      const k = Math.exp(ev.deltaY * 0.0015);
      setView(t - (t - state.view[0]) * k, t + (state.view[1] - t) * k);
    }, { passive: false });
    let drag = null;
    tl.addEventListener("mousedown", ev => {
      const W = width(tl), x = scale(state.view[0], state.view[1], LEFT, W - 10);
      drag = { brush: ev.shiftKey, px: pointerX(tl, ev), view: state.view.slice(), x: x, rect: null };
      if (drag.brush) drag.rect = s("rect", { x: drag.px, y: 0, width: 0, height: tlHeight, class: "brush" }, tl);
    });
    window.addEventListener("mousemove", ev => {
      if (!drag) return;
      const px = pointerX(tl, ev);
      if (drag.brush) { drag.rect.setAttribute("x", Math.min(px, drag.px)); drag.rect.setAttribute("width", Math.abs(px - drag.px)); return; }
      const dt = drag.x.inv(drag.px) - drag.x.inv(px);
      let a = drag.view[0] + dt, b = drag.view[1] + dt;
      if (a < state.full[0]) { b += state.full[0] - a; a = state.full[0]; }
      if (b > state.full[1]) { a -= b - state.full[1]; b = state.full[1]; }
      setView(a, b);
    });
    window.addEventListener("mouseup", ev => {
      if (!drag) return;
      const d = drag; drag = null;
      if (d.brush) { const px = pointerX(tl, ev); if (Math.abs(px - d.px) > 3) setView(d.x.inv(d.px), d.x.inv(px)); else drawTimeline(); }
    });
    tl.addEventListener("dblclick", () => setView(state.full[0], state.full[1]));
    let obrush = null;
    overview.addEventListener("mousedown", ev => { obrush = { px: pointerX(overview, ev) }; });
    overview.addEventListener("mousemove", ev => {
      if (!obrush) return;
      const x = overview._x, px = pointerX(overview, ev);
      if (Math.abs(px - obrush.px) > 2) setView(x.inv(obrush.px), x.inv(px));
    });
    overview.addEventListener("mouseup", () => { obrush = null; });
    overview.addEventListener("mouseleave", () => { obrush = null; });

    // ---- plots ----
    h("h2", { id: P + "plots" }, art, "Plots");
    const grid = h("div", { class: "grid2" }, art);
    function card(t, hint) { const c = h("div", { class: "card" }, grid); h("h3", null, c, t); if (hint) h("p", { class: "hint" }, c, hint); return c; }

    // Throughput.
    const thCard = card("Throughput over time", "Notifications + indications and writes (ATT values), per second, in the selected range.");
    const thBar = h("div", { class: "toolbar" }, thCard);
    let thMode = "bytes";
    const thBtn = h("button", { type: "button" }, thBar, "show PDUs/s");
    thBtn.addEventListener("click", () => { thMode = thMode === "bytes" ? "pdus" : "bytes"; thBtn.textContent = thMode === "bytes" ? "show PDUs/s" : "show bytes/s"; drawThroughput(); });
    const th = s("svg", { class: "chart", "data-chart": "throughput", height: 220 }, thCard);
    const thLeg = h("div", { class: "legend" }, thCard);
    const thHidden = new Set();
    for (const [c, l, k] of [["#4c78a8", "notifications/indications", "notify"], ["#f58518", "writes", "write"]]) legendItem(thLeg, c, l, k, thHidden, () => drawThroughput());
    function drawThroughput() {
      clear(th);
      const T = m.throughput, W = width(th), L = 64, R = 10, Ht = 220, B = 24;
      const [v0, v1] = state.view;
      const x = scale(v0, v1, L, W - R);
      const per = T.width / 1e6, idx = thMode === "bytes" ? [0, 2] : [1, 3];
      let max = 1;
      const pts = [[], []];
      T.buckets.forEach((b, i) => {
        const t = T.start + (i + 0.5) * T.width;
        if (t < v0 - T.width || t > v1 + T.width) return;
        for (let k = 0; k < 2; k++) { const v = b[idx[k]] / per; pts[k].push([t, v]); if (v > max) max = v; }
      });
      const y = scale(0, max * 1.05, Ht - B, 8);
      axisY(th, y, 0, max * 1.05, L, v => thMode === "bytes" ? fmtBytes(v) + "/s" : fmtNum(Math.round(v)) + "/s");
      axisX(th, x, v0, v1, Ht - B, 0, secFmt);
      const g = s("g", { "clip-path": "url(#" + P + "thclip)" }, th);
      s("clipPath", { id: P + "thclip" }, th).appendChild(s("rect", { x: L, y: 0, width: W - R - L, height: Ht }));
      ["#4c78a8", "#f58518"].forEach((col, k) => {
        const key = k === 0 ? "notify" : "write";
        if (thHidden.has(key) || !pts[k].length || !pts[k].some(p => p[1] > 0)) return;
        const d = pts[k].map((p, i) => (i ? "L" : "M") + x(p[0]).toFixed(1) + "," + y(p[1]).toFixed(1)).join("");
        if (k === 0) s("path", { d: d + `L${x(pts[k][pts[k].length - 1][0]).toFixed(1)},${y(0)}L${x(pts[k][0][0]).toFixed(1)},${y(0)}Z`, fill: col, opacity: 0.25 }, g);
        s("path", { d: d, fill: "none", stroke: col, "stroke-width": 1.5, "data-series": key }, g);
      });
      if (!T.buckets.some(b => b[1] || b[3])) s("text", { x: (L + W) / 2, y: Ht / 2, "text-anchor": "middle", class: "empty" }, th, "no notifications or writes");
      const res = s("text", { x: W - R, y: 12, "text-anchor": "end", fill: "#5f6b7a" }, th, "bucket " + fmtDur(T.width));
      res.setAttribute("fill", "#5f6b7a");
    }
    state.redraw.push(drawThroughput);

    // Latency histograms.
    const laCard = card("ATT round-trip latency", "Request → response (and indication → confirmation) per operation type; bars are counts per latency bin.");
    const la = s("svg", { class: "chart", "data-chart": "latency" }, laCard);
    function drawLatency() {
      clear(la);
      const ops = m.latency.filter(o => o.count > 0);
      const W = width(la), L = 150, R = 10, rowH = 46, top = 6;
      const Ht = top + Math.max(1, ops.length) * rowH + 24;
      la.setAttribute("height", Ht);
      if (!ops.length) { s("text", { x: W / 2, y: 30, "text-anchor": "middle" }, la, "no answered ATT requests"); return; }
      const edges = ops[0].edges, nb = edges.length;
      const x = scale(0, nb, L, W - R), bw = (W - R - L) / nb;
      ops.forEach((o, i) => {
        const y0 = top + i * rowH, max = Math.max(...o.bins, 1);
        s("text", { x: L - 8, y: y0 + 16, "text-anchor": "end", "font-weight": 600 }, la, o.operation);
        s("text", { x: L - 8, y: y0 + 30, "text-anchor": "end", fill: "#5f6b7a" }, la, "n=" + fmtNum(o.count) + ", mean " + fmtDur(Math.round(o.sum / o.count)));
        s("line", { x1: L, x2: W - R, y1: y0 + rowH - 6, y2: y0 + rowH - 6, stroke: "#d8dde5" }, la);
        o.bins.forEach((n, b) => {
          if (!n) return;
          const hh = (rowH - 12) * n / max;
          const r = s("rect", { x: x(b) + 1, y: y0 + rowH - 6 - hh, width: bw - 2, height: hh, fill: PALETTE[i % PALETTE.length] }, la);
          title(r, o.operation + ": " + fmtNum(n) + " in " + fmtDur(edges[b]) + (b + 1 < nb ? " – " + fmtDur(edges[b + 1]) : " and more"));
        });
      });
      const yA = top + ops.length * rowH;
      for (let b = 0; b < nb; b += 2) s("text", { x: x(b) + 2, y: yA + 14, fill: "#5f6b7a", "font-size": 10 }, la, fmtDur(edges[b]));
    }
    state.redraw.push(drawLatency);

    // RSSI.
    const rsCard = card("RSSI over time per advertiser", "Mean per bucket (line) and min–max (band), dBm, from advertising reports.");
    const rs = s("svg", { class: "chart", "data-chart": "rssi", height: 220 }, rsCard);
    const rsLeg = h("div", { class: "legend" }, rsCard);
    const rssiDevices = m.devices.filter(d => d.rssi && d.rssi.buckets.some(b => b));
    // The most heard advertisers are drawn; the model folds the rest (`folded`) into one
    // "N others" entry that draws and lists them when clicked.
    const rsHidden = new Set(), rsFolded = rssiDevices.filter(d => d.folded);
    let rsExpanded = false;
    const rsColour = d => PALETTE[rssiDevices.indexOf(d) % PALETTE.length];
    function rssiLegend() {
      clear(rsLeg);
      for (const d of rssiDevices) if (!d.folded || rsExpanded) legendItem(rsLeg, rsColour(d), d.address + (d.name ? " " + d.name : ""), d.address, rsHidden, () => drawRSSI());
      if (rsFolded.length) {
        const o = h("span", { class: "series others", "data-series": "others", "data-folded": rsFolded.length, role: "button", tabindex: 0, "aria-expanded": String(rsExpanded), title: rsFolded.map(d => d.address + " (" + fmtNum(d.reports) + " reports)").join("\n") }, rsLeg,
          rsExpanded ? "▾ fold the " + rsFolded.length + " least heard" : "▸ " + rsFolded.length + " others (fewer reports)");
        o.addEventListener("click", () => { rsExpanded = !rsExpanded; rssiLegend(); drawRSSI(); });
      }
    }
    rssiLegend();
    function drawRSSI() {
      clear(rs);
      const W = width(rs), L = 50, R = 10, Ht = 220, B = 24;
      const [v0, v1] = state.view;
      const x = scale(v0, v1, L, W - R);
      let lo = 0, hi = -127;
      for (const d of rssiDevices) for (const b of d.rssi.buckets) if (b) { lo = Math.min(lo, b[0]); hi = Math.max(hi, b[1]); }
      if (!rssiDevices.length) { lo = -100; hi = -20; }
      lo = Math.floor(lo / 10) * 10; hi = Math.ceil(hi / 10) * 10 + (hi === lo ? 10 : 0);
      const y = scale(lo, hi, Ht - B, 8);
      axisY(rs, y, lo, hi, L, v => v + " dBm");
      axisX(rs, x, v0, v1, Ht - B, 0, secFmt);
      const g = s("g", { "clip-path": "url(#" + P + "rsclip)" }, rs);
      s("clipPath", { id: P + "rsclip" }, rs).appendChild(s("rect", { x: L, y: 0, width: W - R - L, height: Ht }));
      rssiDevices.forEach(d => {
        if (rsHidden.has(d.address) || (d.folded && !rsExpanded)) return;
        const col = rsColour(d), S = d.rssi;
        let line = "";
        S.buckets.forEach((b, k) => {
          if (!b) { line += " "; return; }
          const t0 = S.start + k * S.width, t1 = t0 + S.width, tm = (t0 + t1) / 2;
          if (t1 < v0 || t0 > v1) return;
          s("rect", { x: x(t0), y: y(b[1]), width: Math.max(1, x(t1) - x(t0)), height: Math.max(1, y(b[0]) - y(b[1])), fill: col, opacity: 0.18 }, g);
          line += (line.endsWith(" ") || !line ? "M" : "L") + x(tm).toFixed(1) + "," + y(b[2]).toFixed(1);
        });
        const pathD = line.replace(/ +/g, "");
        if (pathD) { const p = s("path", { d: pathD, fill: "none", stroke: col, "stroke-width": 1.5, "data-series": d.address }, g); title(p, d.address + (d.name ? " " + d.name : "") + ": " + fmtNum(d.reports) + " reports"); }
        S.buckets.forEach((b, k) => { if (!b) return; const tm = S.start + (k + 0.5) * S.width; if (tm < v0 || tm > v1) return; s("circle", { cx: x(tm), cy: y(b[2]), r: 2, fill: col }, g); });
      });
      if (!rssiDevices.length) s("text", { x: (L + W) / 2, y: Ht / 2, "text-anchor": "middle" }, rs, "no advertising reports");
      if (m.devices.length > rssiDevices.length && rssiDevices.length) s("text", { x: W - R, y: 12, "text-anchor": "end", fill: "#5f6b7a" }, rs, rssiDevices.length + " of " + m.header.devices + " advertisers");
    }
    state.redraw.push(drawRSSI);

    // Connection parameters.
    const cpCard = card("Connection parameters", "Connection interval over time per connection: set (line, dots) and requested over L2CAP (hollow, range).");
    const cp = s("svg", { class: "chart", "data-chart": "parameters", height: 220 }, cpCard);
    const cpLeg = h("div", { class: "legend" }, cpCard);
    const withParams = m.connections.filter(c => c.parameters && c.parameters.length);
    const cpHidden = new Set();
    withParams.slice(0, 12).forEach((c, i) => { legendItem(cpLeg, PALETTE[i % PALETTE.length], "#" + c.number, "#" + c.number, cpHidden, () => drawParams()).setAttribute("data-connection", c.number); });
    if (withParams.length > 12) h("span", null, cpLeg, "… " + (withParams.length - 12) + " more");
    function drawParams() {
      clear(cp);
      const W = width(cp), L = 56, R = 10, Ht = 220, B = 24;
      const [v0, v1] = state.view;
      const x = scale(v0, v1, L, W - R);
      let hi = 10;
      for (const c of withParams) for (const p of c.parameters) hi = Math.max(hi, p.intervalMaxMs || p.intervalMs);
      const y = scale(0, hi * 1.1, Ht - B, 8);
      axisY(cp, y, 0, hi * 1.1, L, v => v + " ms");
      axisX(cp, x, v0, v1, Ht - B, 0, secFmt);
      const g = s("g", { "clip-path": "url(#" + P + "cpclip)" }, cp);
      s("clipPath", { id: P + "cpclip" }, cp).appendChild(s("rect", { x: L, y: 0, width: W - R - L, height: Ht }));
      withParams.forEach((c, i) => {
        if (!connShown(c.number) || cpHidden.has("#" + c.number)) return;
        const col = PALETTE[i % PALETTE.length];
        const set = c.parameters.filter(p => p.kind !== "request");
        let d = "";
        set.forEach((p, k) => {
          const next = k + 1 < set.length ? set[k + 1].t : c.end;
          d += (k ? "L" + x(p.t).toFixed(1) + "," + y(set[k - 1].intervalMs).toFixed(1) : "M" + x(p.t).toFixed(1) + "," + y(p.intervalMs).toFixed(1));
          d += "L" + x(p.t).toFixed(1) + "," + y(p.intervalMs).toFixed(1) + "L" + x(next).toFixed(1) + "," + y(p.intervalMs).toFixed(1);
        });
        if (d) s("path", { d: d, fill: "none", stroke: col, "stroke-width": 1.6, "data-series": "#" + c.number }, g);
        for (const p of c.parameters) {
          const tip = "#" + c.number + " " + p.kind + " frame " + p.frame + ": interval " + p.intervalMs + (p.intervalMaxMs ? "–" + p.intervalMaxMs : "") + " ms, latency " + p.latency + ", timeout " + p.timeoutMs + " ms" + (p.accepted === false ? ", rejected" : p.accepted ? ", accepted" : "");
          if (p.kind === "request") {
            const ln = s("line", { x1: x(p.t), x2: x(p.t), y1: y(p.intervalMs), y2: y(p.intervalMaxMs || p.intervalMs), stroke: col, "stroke-width": 3, opacity: 0.5 }, g);
            title(ln, tip);
            title(s("circle", { cx: x(p.t), cy: y(p.intervalMs), r: 4, fill: "#fff", stroke: col, "stroke-width": 1.5 }, g), tip);
          } else {
            title(s("circle", { cx: x(p.t), cy: y(p.intervalMs), r: 3.5, fill: col }, g), tip);
          }
        }
      });
      if (!withParams.length) s("text", { x: (L + W) / 2, y: Ht / 2, "text-anchor": "middle" }, cp, "no connections");
    }
    state.redraw.push(drawParams);

    // Link layer, for sniffed connections: what only the air shows.
    const sniffed = m.connections.filter(c => c.linkLayer && c.linkLayer.radio).slice(0, 8);
    if (sniffed.length) {
      const chCard = card("Data channel use", "LL data PDUs per channel index 0–36 over all sniffed connections; the dark part failed its CRC (a channel much worse than the rest: interference there).");
      const chs = s("svg", { class: "chart", "data-chart": "channels", height: 200 }, chCard);
      const drawChannels = function () {
        clear(chs);
        const W = width(chs), L = 56, R = 10, Ht = 200, B = 24;
        const pdus = new Array(37).fill(0), crc = new Array(37).fill(0);
        for (const c of sniffed) for (let i = 0; i < 37; i++) { pdus[i] += c.linkLayer.radio.channelPDUs[i]; crc[i] += c.linkLayer.radio.channelCRCErrors[i]; }
        const hi = Math.max(1, ...pdus);
        const y = scale(0, hi, Ht - B, 8);
        axisY(chs, y, 0, hi, L, fmtNum);
        const bw = (W - R - L) / 37;
        for (let i = 0; i < 37; i++) {
          const x0 = L + i * bw + 1, w = Math.max(1, bw - 2);
          title(s("rect", { x: x0, y: y(pdus[i]), width: w, height: Ht - B - y(pdus[i]), fill: PALETTE[0] }, chs),
            "channel " + i + ": " + fmtNum(pdus[i]) + " PDUs, " + fmtNum(crc[i]) + " CRC errors");
          if (crc[i]) s("rect", { x: x0, y: y(crc[i]), width: w, height: Ht - B - y(crc[i]), fill: "#2b2f36" }, chs);
          if (i % 4 === 0) s("text", { x: x0 + w / 2, y: Ht - 8, "text-anchor": "middle" }, chs, String(i));
        }
      };
      state.redraw.push(drawChannels);

      // One line per connection and side (central solid, peripheral dashed) over the shared time axis.
      const seriesChart = function (name, hint, unit, lines) {
        const c = card(name, hint);
        const svg = s("svg", { class: "chart", "data-chart": name, height: 200 }, c);
        const leg = h("div", { class: "legend" }, c);
        const hidden = new Set();
        sniffed.forEach((cn, i) => { legendItem(leg, PALETTE[i % PALETTE.length], "#" + cn.number + " " + cn.linkLayer.accessAddress, "#" + cn.number, hidden, () => draw()); });
        const draw = function () {
          clear(svg);
          const W = width(svg), L = 56, R = 10, Ht = 200, B = 24;
          const [v0, v1] = state.view;
          const x = scale(v0, v1, L, W - R);
          const all = lines();
          let lo = Infinity, hi = -Infinity;
          for (const l of all) for (const p of l.points) { lo = Math.min(lo, p[1]); hi = Math.max(hi, p[1]); }
          if (lo === Infinity) { lo = 0; hi = 1; }
          if (hi === lo) { hi = lo + 1; }
          const y = scale(lo, hi, Ht - B, 8);
          axisY(svg, y, lo, hi, L, v => v + unit);
          axisX(svg, x, v0, v1, Ht - B, 0, secFmt);
          for (const l of all) {
            if (!connShown(l.connection) || hidden.has("#" + l.connection)) continue;
            let d = "";
            for (const p of l.points) { if (p[0] < v0 || p[0] > v1) continue; d += (d ? "L" : "M") + x(p[0]).toFixed(1) + "," + y(p[1]).toFixed(1); }
            if (d) title(s("path", { d: d, fill: "none", stroke: l.colour, "stroke-width": 1.5, "stroke-dasharray": l.dashed ? "4 3" : null, "data-series": "#" + l.connection }, svg), l.label);
          }
          if (!all.some(l => l.points.length)) s("text", { x: (L + W) / 2, y: Ht / 2, "text-anchor": "middle" }, svg, "nothing measured");
        };
        state.redraw.push(draw);
      };
      const points = function (S, value) {
        const out = [];
        S.buckets.forEach((b, k) => { const v = b && value(b); if (v !== null && v !== undefined) out.push([S.start + (k + 0.5) * S.width, v]); });
        return out;
      };
      seriesChart("RSSI per side", "Mean RSSI per bucket of the PDUs each side sent, as the sniffer heard them: central solid, peripheral dashed.", " dBm", () => {
        const out = [];
        sniffed.forEach((c, i) => {
          const r = c.linkLayer.radio, col = PALETTE[i % PALETTE.length];
          out.push({ connection: c.number, colour: col, dashed: false, label: "#" + c.number + " central", points: points(r.rssiCentral, b => b[2]) });
          out.push({ connection: c.number, colour: col, dashed: true, label: "#" + c.number + " peripheral", points: points(r.rssiPeripheral, b => b[2]) });
        });
        return out;
      });
      seriesChart("Retransmissions", "Share of LL data PDUs per bucket that repeated the previous one (same SN): the link failing to get a PDU across.", " %", () =>
        sniffed.map((c, i) => ({
          connection: c.number, colour: PALETTE[i % PALETTE.length], dashed: false, label: "#" + c.number,
          points: points(c.linkLayer.radio.retransmissions, b => b[0] ? Math.round(1000 * b[1] / b[0]) / 10 : null),
        })));
    }

    // ---- connections and sequence charts ----
    h("h2", { id: P + "connections" }, art, "Connections (" + fmtNum(H.connections) + ")");
    if (!m.connections.length) h("p", { class: "empty" }, art, "No connections in this capture.");
    const connEls = new Map();
    for (const c of m.connections) {
      const det = h("details", { class: "conn", id: P + "conn-" + c.number, "data-connection": c.number, "data-search-row": "" }, art);
      const sum = h("summary", null, det);
      h("b", null, sum, "#" + c.number);
      h("span", { class: "mono" }, sum, (c.peer || "(unknown peer)") + (c.peerName ? " “" + c.peerName + "”" : ""));
      h("span", null, sum, c.role ? "this host " + c.role : "role unknown");
      h("span", null, sum, fmtS(c.start) + " – " + fmtS(c.end) + " (" + fmtDur(c.end - c.start) + ")");
      h("span", null, sum, c.mtu != null ? "ATT_MTU " + c.mtu : "ATT_MTU unknown (at least " + c.mtuAtLeast + ")");
      h("span", null, sum, fmtNum(c.notifications) + " notifications, " + fmtNum(c.writes) + " writes");
      if (c.attErrors) h("span", { style: "color:var(--error)" }, sum, c.attErrors + (c.attErrors === 1 ? " ATT error" : " ATT errors"));
      const ll = c.linkLayer;
      if (ll) {
        // Sniffed connection: the air's view (retransmission rate, CRC errors, encryption).
        h("span", { class: "mono" }, sum, "AA " + ll.accessAddress);
        h("span", null, sum, fmtNum(ll.dataPDUs) + " LL data PDUs, " + fmtNum(ll.retransmissions) +
          " retransmitted (" + (100 * ll.retransmissionRate).toFixed(1) + " %), " + fmtNum(ll.crcErrors) + " CRC errors" +
          (ll.encryptedFromFrame ? ", encrypted from frame " + ll.encryptedFromFrame : "") +
          (ll.decryptedPDUs ? ", " + fmtNum(ll.decryptedPDUs) + " PDUs decrypted by blecap" : "") +
          (ll.micFailures ? ", " + fmtNum(ll.micFailures) + " MIC failures" : "") +
          (ll.directionInferred ? ", direction inferred" : ""));
      }
      h("span", { class: "pill", style: "background:" + (END_COLOUR[c.ended] || "var(--open)") }, sum, END_LABEL[c.ended] + (c.reasonName ? ": " + c.reasonName : ""));
      if (c.diagnosis) h("span", { class: "cause", title: c.diagnosis.summary }, sum, c.diagnosis.cause);
      const diagEl = c.diagnosis ? h("div", { class: "body" }, det) : null;
      const bodyEl = h("div", { class: "body" }, det);
      const entry = { c: c, det: det, body: bodyEl, expanded: new Set(), drawn: false };
      connEls.set(c.number, entry);
      if (diagEl) renderVerdict(c.diagnosis, diagEl, c.number);
      det.addEventListener("toggle", () => { if (det.open && !entry.drawn) drawSequence(entry, null); });
    }
    // With few connections, the first one's chart is drawn open right away.
    if (m.connections.length && m.connections.length <= 3) {
      const first = connEls.get(m.connections[0].number);
      first.det.open = true;
      drawSequence(first, null);
    }
    if (m.connectionsOmitted) h("p", { class: "empty" }, art, "… " + fmtNum(m.connectionsOmitted) + " more connections not listed (limit of the report).");

    // ---- diagnosis: why each connection ended, why each attempt failed ----
    // Each connection's verdict is drawn in its own entry above; this section lists them all
    // and draws the verdicts that belong to no listed connection (failed attempts above all).
    function frameLinks(parent, frames, number) {
      const entry = number != null ? connEls.get(number) : null;
      frames.forEach((fr, k) => {
        if (k) parent.append(", ");
        const i = entry ? entry.c.sequence.findIndex(it => it.frame === fr || it.responseFrame === fr || (it.count > 1 && fr >= it.frame && fr <= it.lastFrame)) : -1;
        if (i >= 0) {
          const a = h("a", { class: "frame-link", "data-connection": number, "data-item": i }, parent, String(fr));
          a.addEventListener("click", () => openConnection(number, { item: i, frame: fr }));
        } else {
          parent.append(String(fr));
        }
      });
    }
    function renderVerdict(v, parent, number) {
      const d = h("div", { class: "diagnosis", "data-cause": v.cause, "data-kind": v.kind }, parent);
      h("h3", null, d, v.kind === "attempt" && v.connection == null ? "Diagnosis: connection attempt" : "Diagnosis");
      h("div", { class: "msg" }, d, v.summary);
      const where = h("div", { class: "where" }, d);
      where.append("cause " + v.cause + " · party " + v.party +
        (v.reason != null ? " · reason 0x" + v.reason.toString(16).toUpperCase().padStart(2, "0") + (v.reason_name ? " " + v.reason_name : "") : "") +
        (v.peer ? " · " + v.peer : "") + " · frames " + v.start_frame + "–" + (v.end_frame != null ? v.end_frame : "end") + " · signature ");
      h("code", null, where, v.signature);
      const ol = h("ol", { class: "steps" }, d);
      for (const st of v.steps) {
        const li = h("li", { "data-what": st.what }, ol);
        h("span", { class: "badge " + st.certainty }, li, st.certainty);
        h("span", null, li, st.text);
        const w = h("div", { class: "where" }, li);
        w.append(st.basis);
        if (st.frames.length) { w.append(" · frame" + (st.frames.length > 1 ? "s " : " ")); frameLinks(w, st.frames, number); }
      }
      if (v.signals.length) h("div", { class: "where" }, d, "Signals: " + v.signals.join(", "));
      return d;
    }
    h("h2", { id: P + "diagnosis" }, art, "Diagnosis");
    const listed = m.connections.filter(c => c.diagnosis).map(c => c.diagnosis);
    const verdicts = listed.concat(m.verdicts).sort((a, b) => a.start_frame - b.start_frame || (a.connection || 0) - (b.connection || 0));
    art.setAttribute("data-verdicts", verdicts.length + (m.verdictsOmitted || 0));
    if (!verdicts.length) h("p", { class: "empty" }, art, "No connections and no connection attempts to diagnose.");
    else {
      h("p", { class: "hint" }, art, "Why each connection ended and why each attempt failed, as blecap diagnose says it: each step cites its frames and says whether a frame shows it (observed) or it is reasoned from them (inferred).");
      const t = h("table", { class: "verdicts" }, art);
      const hr = h("tr", null, t);
      for (const c of ["", "cause", "party", "verdict"]) h("th", null, hr, c);
      for (const v of verdicts) {
        const tr = h("tr", { "data-cause": v.cause, "data-connection": v.connection != null ? v.connection : null, "data-search-row": "" }, t);
        const td = h("td", { class: "mono" }, tr);
        if (v.connection != null && connEls.has(v.connection)) {
          const a = h("a", { class: "frame-link" }, td, "#" + v.connection);
          a.addEventListener("click", () => openConnection(v.connection, null));
        } else td.textContent = v.connection != null ? "#" + v.connection : v.kind;
        h("td", { class: "mono" }, tr, v.cause);
        h("td", null, tr, v.party);
        h("td", null, tr, v.summary);
      }
    }
    if (m.verdicts.length) {
      h("h3", { style: "margin-top:14px" }, art, "Attempts and links outside the connections above (" + fmtNum(m.verdicts.length) + ")");
      for (const v of m.verdicts) {
        const el = renderVerdict(v, art, null);
        el.setAttribute("data-search-row", "");
        if (v.connection != null) el.setAttribute("data-connection", v.connection);
      }
    }
    if (m.verdictsOmitted) h("p", { class: "empty" }, art, "… " + fmtNum(m.verdictsOmitted) + " more verdicts not listed (limit of the report).");

    function drawSequence(entry, highlight) {
      const c = entry.c, el = entry.body;
      clear(el);
      entry.drawn = true;
      if (!c.detailed) { h("p", { class: "empty" }, el, "Sequence chart not kept for this connection (only the first connections of a capture get one)."); return; }
      if (!c.sequence.length) { h("p", { class: "empty" }, el, "No GATT or link events on this connection."); return; }
      const rows = [];
      c.sequence.forEach((it, i) => {
        if (c.omitted && c.tailStart === i) rows.push({ omitted: c.omitted });
        rows.push({ item: it, index: i });
        if (it.count > 1 && entry.expanded.has(i)) {
          for (const smp of it.samples || []) rows.push({ sample: smp, parent: it, index: i });
          if (it.count > (it.samples || []).length) rows.push({ more: it.count - (it.samples || []).length, parent: it, index: i });
        }
      });
      const W = Math.max(900, el.clientWidth || 1100), rowH = 46, top = 40;
      const xC = 250, xP = W - 160, xM = (xC + xP) / 2, Ht = top + rows.length * rowH + 10;
      const svg = s("svg", { class: "chart seq", "data-chart": "sequence", width: W, height: Ht, "data-rows": c.sequence.length }, el);
      const defs = s("defs", null, svg);
      const pat = s("pattern", { id: P + "stripes-" + c.number, width: 8, height: 8, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" }, defs);
      s("rect", { width: 8, height: 8, fill: "#eef4fb" }, pat);
      s("line", { x1: 0, y1: 0, x2: 0, y2: 8, stroke: "#d6e2f0", "stroke-width": 4 }, pat);
      const mk = s("marker", { id: P + "arrow", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" }, defs);
      s("path", { d: "M0,0 L10,5 L0,10 z", fill: "#334155" }, mk);
      const mkE = s("marker", { id: P + "arrowE", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" }, defs);
      s("path", { d: "M0,0 L10,5 L0,10 z", fill: "#c62828" }, mkE);
      const hostC = c.role !== "peripheral";
      s("text", { x: xC, y: 16, "text-anchor": "middle", "font-weight": 600 }, svg, "Central" + (hostC ? " (this host)" : " " + (c.peer || "")));
      s("text", { x: xP, y: 16, "text-anchor": "middle", "font-weight": 600 }, svg, "Peripheral" + (hostC ? " " + (c.peer || "") + (c.peerName ? " " + c.peerName : "") : " (this host)"));
      s("text", { x: 8, y: 16, fill: "#5f6b7a" }, svg, "time          frame");
      s("line", { x1: xC, x2: xC, y1: 24, y2: Ht, class: "lifeline" }, svg);
      s("line", { x1: xP, x2: xP, y1: 24, y2: Ht, class: "lifeline" }, svg);
      let hlEl = null;
      rows.forEach((r, k) => {
        const y = top + k * rowH;
        const g = s("g", { class: "row" }, svg);
        s("rect", { x: 0, y: y - 4, width: W, height: rowH, class: "row-hit" }, g);
        if (r.omitted) {
          g.setAttribute("class", "row omitted");
          s("rect", { x: xC - 40, y: y + 4, width: xP - xC + 80, height: rowH - 16, rx: 4 }, g);
          s("text", { x: xM, y: y + 22, "text-anchor": "middle", fill: "#5f6b7a" }, g, "… " + fmtNum(r.omitted.items) + " more rows (" + fmtNum(r.omitted.events) + " events, frames " + r.omitted.firstFrame + "–" + r.omitted.lastFrame + ") not kept");
          return;
        }
        if (r.sample || r.more) {
          const it = r.parent, c2p = it.dir === "c2p";
          if (r.sample) {
            s("text", { x: 8, y: y + 14, class: "mono", fill: "#5f6b7a" }, g, fmtS(r.sample[1]).padEnd(12) + " " + r.sample[0]);
            const xa = c2p ? xC : xP, xb = c2p ? xP : xC;
            s("line", { x1: xa, x2: xb, y1: y + 14, y2: y + 14, class: "msg", opacity: 0.6, "marker-end": "url(#" + P + "arrow)" }, g);
            s("text", { x: xM, y: y + 9, "text-anchor": "middle", fill: "#5f6b7a" }, g, it.op + " " + (it.name || "") + " · " + r.sample[2] + " B");
            g.setAttribute("data-frame", r.sample[0]);
            if (highlight && highlight.frame === r.sample[0]) { g.setAttribute("class", "row hl"); hlEl = g; }
          } else {
            s("text", { x: xM, y: y + 18, "text-anchor": "middle", fill: "#5f6b7a" }, g, "… " + fmtNum(r.more) + " more in this run (up to frame " + it.lastFrame + ")");
          }
          return;
        }
        const it = r.item, i = r.index;
        g.setAttribute("id", P + "c" + c.number + "-row-" + i);
        g.setAttribute("data-frame", it.frame);
        const cls = ["row"]; if (it.error) cls.push("err"); if (it.count > 1) cls.push("band");
        if (highlight && highlight.item === i && !(highlight.frame && entry.expanded.has(i) && (it.samples || []).some(x => x[0] === highlight.frame))) { cls.push("hl"); hlEl = g; }
        g.setAttribute("class", cls.join(" "));
        s("text", { x: 8, y: y + 18, class: "mono", fill: "#5f6b7a" }, g, fmtS(it.t).padEnd(12) + " " + it.frame + (it.count > 1 ? "–" + it.lastFrame : ""));
        const label = it.op + (it.name ? " · " + it.name : it.handle !== undefined && it.handle !== null ? " · 0x" + it.handle.toString(16).padStart(4, "0") : "");
        const detail = [it.detail, it.error, it.latency ? "rtt " + fmtDur(it.latency) : null].filter(Boolean).join(" · ");
        if (it.dir === "link") {
          s("rect", { x: xC - 40, y: y + 4, width: xP - xC + 80, height: rowH - 16, rx: 4, class: "linkbox" }, g);
          s("text", { x: xM, y: y + 22, "text-anchor": "middle", class: "op" }, g, it.op + (detail ? " — " + detail : ""));
          return;
        }
        const c2p = it.dir === "c2p", xa = c2p ? xC : xP, xb = c2p ? xP : xC;
        if (it.count > 1) {
          s("rect", { x: xC, y: y, width: xP - xC, height: rowH - 6, fill: "url(#" + P + "stripes-" + c.number + ")", class: "band" }, g);
          s("line", { x1: xa, x2: xb, y1: y + 14, y2: y + 14, class: "msg", "marker-end": "url(#" + P + "arrow)" }, g);
          s("line", { x1: xa, x2: xb, y1: y + 18, y2: y + 18, class: "msg", opacity: 0.5, "marker-end": "url(#" + P + "arrow)" }, g);
          s("text", { x: xM, y: y + 9, "text-anchor": "middle", class: "op", "font-weight": 600 }, g, label + " × " + fmtNum(it.count));
          s("text", { x: xM, y: y + 33, "text-anchor": "middle", class: "detail", fill: "#5f6b7a", "font-size": 10 }, g, detail);
          const tg = s("text", { x: xC - 10, y: y + 17, "text-anchor": "end", class: "toggle" }, g, entry.expanded.has(i) ? "▾ collapse" : "▸ expand");
          tg.addEventListener("click", () => { if (entry.expanded.has(i)) entry.expanded.delete(i); else entry.expanded.add(i); drawSequence(entry, null); });
          return;
        }
        s("line", { x1: xa, x2: xb, y1: y + 15, y2: y + 15, class: "msg", "marker-end": "url(#" + P + (it.error ? "arrowE" : "arrow") + ")" }, g);
        s("text", { x: xM, y: y + 10, "text-anchor": "middle", class: "op" }, g, label);
        if (it.responseFrame) {
          s("line", { x1: xb, x2: xa, y1: y + 22, y2: y + 22, class: "ret", "marker-end": "url(#" + P + (it.error ? "arrowE" : "arrow") + ")" }, g);
        }
        const dt = s("text", { x: xM, y: y + 35, "text-anchor": "middle", class: "detail", fill: it.error ? "#c62828" : "#5f6b7a", "font-size": 10 }, g, detail + (it.responseFrame ? " · response frame " + it.responseFrame : ""));
        title(dt, detail);
      });
      if (hlEl) setTimeout(() => hlEl.scrollIntoView({ behavior: "smooth", block: "center" }), 0);
    }

    function openConnection(number, highlight) {
      const entry = connEls.get(number);
      if (!entry) return;
      if (highlight && highlight.frame !== undefined && highlight.item !== undefined) {
        const it = entry.c.sequence[highlight.item];
        if (it && it.count > 1 && (it.samples || []).some(x => x[0] === highlight.frame)) entry.expanded.add(highlight.item);
      }
      entry.det.open = true;
      drawSequence(entry, highlight);
      if (!highlight) entry.det.scrollIntoView({ behavior: "smooth", block: "start" });
    }

    // ---- GATT databases ----
    h("h2", { id: P + "gatt" }, art, "GATT databases");
    if (!m.databases.length) h("p", { class: "empty" }, art, "No GATT discovery in this capture.");
    if (m.databasesOmitted) h("p", { class: "empty" }, art, "… the databases of " + fmtNum(m.databasesOmitted) + " more connections not shown (the report keeps " + fmtNum(m.databases.length) + " peers).");
    for (const d of m.databases) {
      const det = h("details", { class: "conn", open: m.databases.length <= 4 ? "" : null, "data-database": d.side, "data-db-connection": d.connection, "data-search-row": "" }, art);
      const sum = h("summary", null, det);
      h("b", null, sum, d.side === "remote" ? "Peer " + (d.peer || "(unknown)") : "This host's server");
      h("span", null, sum, (d.side === "remote" ? "its GATT server as this host discovered it" : "as peers discovered it") + ", learned on connection #" + d.connection);
      const b = h("div", { class: "body" }, det);
      const ul = h("ul", { class: "tree" }, b);
      function ch(parent, c) {
        const li = h("li", null, parent);
        h("span", null, li, "Characteristic ");
        h("b", null, li, c.name || c.uuid);
        if (c.name) h("code", null, li, " " + c.uuid);
        h("span", { class: "h" }, li, "  decl 0x" + c.declarationHandle.toString(16).padStart(4, "0") + ", value 0x" + c.valueHandle.toString(16).padStart(4, "0") + " ");
        for (const p of c.properties) h("span", { class: "prop" }, li, p);
        if (c.descriptors.length) {
          const u = h("ul", { class: "tree" }, li);
          for (const ds of c.descriptors) {
            const l2 = h("li", null, u);
            h("span", null, l2, "Descriptor ");
            h("b", null, l2, ds.name || ds.uuid);
            h("span", { class: "h" }, l2, "  0x" + ds.handle.toString(16).padStart(4, "0") + (ds.name ? "  " + ds.uuid : ""));
          }
        }
      }
      for (const sv of d.services) {
        const li = h("li", null, ul);
        h("span", null, li, (sv.primary ? "Primary" : "Secondary") + " Service ");
        h("b", null, li, sv.name || sv.uuid);
        if (sv.name) h("code", null, li, " " + sv.uuid);
        h("span", { class: "h" }, li, "  0x" + sv.startHandle.toString(16).padStart(4, "0") + "–0x" + sv.endHandle.toString(16).padStart(4, "0"));
        if (sv.characteristics.length) { const u = h("ul", { class: "tree" }, li); for (const c of sv.characteristics) ch(u, c); }
      }
      if (d.orphans.length) { const li = h("li", null, ul, "(characteristics outside any discovered service)"); const u = h("ul", { class: "tree" }, li); for (const c of d.orphans) ch(u, c); }
    }

    // ---- findings ----
    h("h2", { id: P + "findings" }, art, "Findings (" + m.findings.length + ")");
    if (!m.findings.length) h("p", { class: "empty" }, art, "No findings: the capture follows every rule that could be evaluated.");
    const fl = h("ul", { class: "findings" }, art);
    m.findings.forEach((f, fi) => {
      const li = h("li", { class: "finding " + f.severity, id: P + "finding-" + fi, "data-rule": f.rule, "data-connection": f.connection != null ? f.connection : null, "data-search-row": "" }, fl);
      const top = h("div", null, li);
      h("span", { class: "badge " + f.severity }, top, f.severity);
      h("b", null, top, f.rule + " " + f.title + (f.baselined ? " (baselined)" : ""));
      h("div", { class: "msg" }, li, f.message);
      const where = h("div", { class: "where" }, li);
      where.append("at " + fmtS(f.t) + (f.connection ? " · connection #" + f.connection : "") + (f.peer ? " · " + f.peer : "") + " · " + f.evidence + " · frames ");
      f.frames.forEach((fr, k) => {
        if (k) where.append(", ");
        const anchor = f.anchors.find(a => { const c = connEls.get(a.connection); if (!c) return false; const it = c.c.sequence[a.item]; return it && (it.frame === fr || it.responseFrame === fr || (it.count > 1 && fr >= it.frame && fr <= it.lastFrame)); });
        if (anchor) {
          const a = h("a", { class: "frame-link", "data-connection": anchor.connection, "data-item": anchor.item }, where, String(fr));
          a.addEventListener("click", () => openConnection(anchor.connection, { item: anchor.item, frame: fr }));
        } else {
          where.append(String(fr));
        }
      });
      if (f.anchors.length) {
        const a0 = f.anchors[0];
        const a = h("a", { class: "seq-link" }, where, "  → show in the sequence chart of #" + a0.connection);
        a.addEventListener("click", () => openConnection(a0.connection, { item: a0.item, frame: f.frames[0] }));
      }
      if (f.explanation) h("p", null, li, f.explanation);
      if (f.fix) { const d = h("details", null, li); h("summary", null, d, "Fix (" + (f.fixPlatform || "Core Bluetooth") + ")"); h("pre", null, d, f.fix); }
      if (f.docs) h("div", { class: "where" }, li, "Rule documentation: " + f.docs + " (blecap explain " + f.rule + ")");
      if (f.references.length) h("div", { class: "where" }, li, "References: " + f.references.join("; "));
    });

    // ---- details ----
    h("h2", { id: P + "notes" }, art, "Details");
    if (m.notEvaluated.length) {
      h("h3", null, art, "Rules not evaluated");
      const u = h("ul", null, art);
      for (const n of m.notEvaluated) h("li", null, u, n.rule + " " + n.slug + (n.whole ? "" : " (in part)") + ": " + n.reason);
    }
    if (m.devices.length) {
      h("h3", null, art, "Advertisers (" + fmtNum(H.devices) + ")");
      const t = h("table", { class: "counts" }, art);
      for (const d of m.devices.slice(0, 50)) { const tr = h("tr", { "data-search-row": "" }, t); h("td", { class: "mono" }, tr, d.address); h("td", null, tr, d.name || ""); h("td", null, tr, fmtNum(d.reports) + " reports"); h("td", null, tr, d.connectable ? "connectable" : ""); }
      if (m.devices.length > 50 || m.devicesOmitted) h("p", { class: "empty" }, art, "… " + fmtNum(H.devices - Math.min(50, m.devices.length)) + " more advertisers");
    }
    if (m.events.length) {
      h("h3", null, art, "Timeline events by type");
      const t = h("table", { class: "counts" }, art);
      for (const e of m.events) { const tr = h("tr", { "data-search-row": "" }, t); h("td", { style: "text-align:right" }, tr, fmtNum(e.count)); h("td", { class: "mono" }, tr, e.type); }
    }
    // The rows as the controls say (a reload may keep the box's text); the page draws the plots next.
    applyFilters(false);
    return state;
  }

  // ---- page ----------------------------------------------------------------------------
  try {
    const models = JSON.parse(document.getElementById("blecap-data").textContent);
    const root = document.getElementById("report");
    const states = models.map((m, i) => renderCapture(m, i, root, models.length > 1));
    const draw = () => { for (const st of states) for (const f of st.redraw) f(); };
    draw();
    let pending = 0;
    window.addEventListener("resize", () => { clearTimeout(pending); pending = setTimeout(draw, 150); });
    let findings = 0, connections = 0;
    for (const m of models) { findings += m.findings.length; connections += m.header.connections; }
    body.setAttribute("data-captures", models.length);
    body.setAttribute("data-findings", findings);
    body.setAttribute("data-connections", connections);
    body.setAttribute("data-charts", document.querySelectorAll("svg.chart").length);
    if (!body.hasAttribute("data-error")) body.setAttribute("data-ready", "1");
  } catch (e) {
    fail(e && e.stack ? e.stack.split("\n")[0] : e);
  }
})();
