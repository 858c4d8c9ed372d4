/* zoomplot: the small pan/zoom SVG plotter inlined into the pages of `ccscope report` (no network, no
   dependency). Each <div class="zplot" data-spec="ID"> is drawn from the JSON in
   <script type="application/json" id="ID">: {title, xlabel, ylabel, note, ymin0 (y axis from 0),
   xrange ([lo, hi] always shown), xpad (a margin around the data), markers (dots on short series),
   series: [{name, color, x: [], y: [], err: [] | null, mode: "line"|"step"|"markers"}]}.
   Mouse wheel: zoom the time (x) axis around the pointer; drag: pan; double click or "reset": whole range.
   The y range follows the data in view. Each drawn plot sets data-points (points drawn) for tests. */
(function () {
  "use strict";
  var NS = "http://www.w3.org/2000/svg";
  var M = { l: 70, r: 14, t: 10, b: 40 };

  function el(name, attrs, parent) {
    var e = document.createElementNS(NS, name);
    for (var k in attrs) { e.setAttribute(k, attrs[k]); }
    if (parent) { parent.appendChild(e); }
    return e;
  }

  function ticks(lo, hi, n) {
    var span = hi - lo;
    if (!(span > 0)) { return [lo]; }
    var raw = span / n, mag = Math.pow(10, Math.floor(Math.log10(raw))), f = raw / mag;
    var step = (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * mag, out = [];
    for (var v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) { out.push(Math.abs(v) < step * 1e-9 ? 0 : v); }
    return out;
  }

  function fmt(v) {
    var a = Math.abs(v);
    if (a >= 1e4) {
      var u = a >= 1e12 ? [1e12, "T"] : a >= 1e9 ? [1e9, "G"] : a >= 1e6 ? [1e6, "M"] : [1e3, "k"];
      return String(parseFloat((v / u[0]).toPrecision(4))) + u[1];
    }
    if (a !== 0 && a < 1e-3) { return v.toExponential(2).replace("e+", "e"); }
    return String(parseFloat(v.toPrecision(6)));
  }

  function Plot(div, spec) {
    this.div = div; this.spec = spec;
    var x0 = Infinity, x1 = -Infinity;
    spec.series.forEach(function (s) {
      s.hidden = false;
      if (s.x.length) { x0 = Math.min(x0, s.x[0]); x1 = Math.max(x1, s.x[s.x.length - 1]); }
    });
    if (spec.xrange) { x0 = Math.min(x0, spec.xrange[0]); x1 = Math.max(x1, spec.xrange[1]); }
    if (!isFinite(x0)) { x0 = 0; x1 = 1; }
    if (x1 <= x0) { x0 -= (Math.abs(x0) || 1) * 0.5; x1 = x0 + (Math.abs(x0) || 1); }
    if (spec.xpad) { var p = (x1 - x0) * 0.04; x0 -= p; x1 += p; }
    this.full = [x0, x1]; this.view = [x0, x1];
    var bar = document.createElement("div"); bar.className = "zbar";
    var reset = document.createElement("button"); reset.textContent = "reset zoom"; reset.type = "button";
    var self = this;
    reset.onclick = function () { self.view = self.full.slice(); self.draw(); };
    this.info = document.createElement("span"); this.info.className = "zinfo";
    bar.appendChild(reset); bar.appendChild(this.info); div.appendChild(bar);
    this.W = Math.max(320, Math.min(div.clientWidth || 900, 1100)); this.H = spec.height || 280;
    this.svg = el("svg", { width: this.W, height: this.H, viewBox: "0 0 " + this.W + " " + this.H, role: "img" }, div);
    var legend = document.createElement("div"); legend.className = "zlegend"; div.appendChild(legend);
    spec.series.forEach(function (s) {
      var item = document.createElement("span"); item.className = "zitem"; item.title = "click: show/hide";
      var sw = document.createElement("i"); sw.style.background = s.color; item.appendChild(sw);
      item.appendChild(document.createTextNode(s.name));
      item.onclick = function () { s.hidden = !s.hidden; item.style.opacity = s.hidden ? 0.35 : 1; self.draw(); };
      legend.appendChild(item);
    });
    this.bind(); this.draw();
  }

  Plot.prototype.px = function (x) { return M.l + (x - this.view[0]) / (this.view[1] - this.view[0]) * (this.W - M.l - M.r); };
  Plot.prototype.xOf = function (px) { return this.view[0] + (px - M.l) / (this.W - M.l - M.r) * (this.view[1] - this.view[0]); };

  Plot.prototype.visible = function (s) { // index range of s inside the view, one point beyond each side
    var lo = 0, hi = s.x.length;
    while (lo < hi) { var m = (lo + hi) >> 1; if (s.x[m] < this.view[0]) { lo = m + 1; } else { hi = m; } }
    var a = Math.max(0, lo - 1); lo = a; hi = s.x.length;
    while (lo < hi) { var m2 = (lo + hi) >> 1; if (s.x[m2] <= this.view[1]) { lo = m2 + 1; } else { hi = m2; } }
    return [a, Math.min(s.x.length, lo + 1)];
  };

  Plot.prototype.draw = function () {
    var self = this, spec = this.spec, svg = this.svg, W = this.W, H = this.H;
    while (svg.firstChild) { svg.removeChild(svg.firstChild); }
    var y0 = Infinity, y1 = -Infinity, ranges = [];
    spec.series.forEach(function (s, i) {
      var r = self.visible(s); ranges[i] = r;
      if (s.hidden) { return; }
      for (var k = r[0]; k < r[1]; k++) {
        var v = s.y[k], e = s.err ? (s.err[k] || 0) : 0;
        if (v === null || !isFinite(v)) { continue; }
        y0 = Math.min(y0, v - e); y1 = Math.max(y1, v + e);
      }
    });
    if (!isFinite(y0)) { y0 = 0; y1 = 1; }
    if (spec.ymin0 && y0 > 0) { y0 = 0; }
    if (y1 <= y0) { y1 = y0 + (Math.abs(y0) || 1); }
    var pad = (y1 - y0) * 0.06; y1 += pad; if (!(spec.ymin0 && y0 === 0)) { y0 -= pad; }
    var py = function (y) { return H - M.b - (y - y0) / (y1 - y0) * (H - M.t - M.b); };
    var g = el("g", { "font-size": 11, "font-family": "sans-serif", fill: "#333" }, svg);
    ticks(this.view[0], this.view[1], 8).forEach(function (t) {
      var x = self.px(t);
      el("line", { x1: x, x2: x, y1: M.t, y2: H - M.b, stroke: "#e4e4e4" }, g);
      el("text", { x: x, y: H - M.b + 14, "text-anchor": "middle" }, g).textContent = fmt(t);
    });
    ticks(y0, y1, 5).forEach(function (t) {
      var y = py(t);
      el("line", { x1: M.l, x2: W - M.r, y1: y, y2: y, stroke: "#e4e4e4" }, g);
      el("text", { x: M.l - 5, y: y + 4, "text-anchor": "end" }, g).textContent = fmt(t);
    });
    el("rect", { x: M.l, y: M.t, width: W - M.l - M.r, height: H - M.t - M.b, fill: "none", stroke: "#888" }, g);
    el("text", { x: (M.l + W - M.r) / 2, y: H - 6, "text-anchor": "middle" }, g).textContent = spec.xlabel || "";
    el("text", { x: 12, y: (M.t + H - M.b) / 2, "text-anchor": "middle",
                 transform: "rotate(-90 12 " + (M.t + H - M.b) / 2 + ")" }, g).textContent = spec.ylabel || "";
    var cid = "clip-" + (this.div.id || Math.random().toString(36).slice(2));
    var cp = el("clipPath", { id: cid }, svg);
    el("rect", { x: M.l, y: M.t, width: W - M.l - M.r, height: H - M.t - M.b }, cp);
    var area = el("g", { "clip-path": "url(#" + cid + ")" }, svg), drawn = 0;
    spec.series.forEach(function (s, i) {
      if (s.hidden) { return; }
      var r = ranges[i], pts = [], step = s.mode === "step";
      for (var k = r[0]; k < r[1]; k++) {
        var v = s.y[k];
        if (v === null || !isFinite(v)) { continue; }
        var X = self.px(s.x[k]), Y = py(v);
        if (step && pts.length) { pts.push(X.toFixed(1) + "," + pts[pts.length - 1].split(",")[1]); }
        pts.push(X.toFixed(1) + "," + Y.toFixed(1)); drawn++;
        if (s.err && s.err[k]) {
          var ya = py(v - s.err[k]), yb = py(v + s.err[k]);
          el("line", { x1: X, x2: X, y1: ya, y2: yb, stroke: s.color, "stroke-width": 1.2 }, area);
          el("line", { x1: X - 4, x2: X + 4, y1: ya, y2: ya, stroke: s.color, "stroke-width": 1.2 }, area);
          el("line", { x1: X - 4, x2: X + 4, y1: yb, y2: yb, stroke: s.color, "stroke-width": 1.2 }, area);
        }
        if (s.mode === "markers" || (spec.markers && (r[1] - r[0]) <= 60)) {
          el("circle", { cx: X, cy: Y, r: 2.8, fill: s.color }, area);
        }
      }
      if (pts.length === 1 && s.mode !== "markers" && !spec.markers) {
        var xy = pts[0].split(",");
        el("circle", { cx: xy[0], cy: xy[1], r: 2.8, fill: s.color }, area);
      }
      if (pts.length > 1 && s.mode !== "markers") {
        el("polyline", { points: pts.join(" "), fill: "none", stroke: s.color, "stroke-width": 1.3,
                         "stroke-linejoin": "round" }, area);
      }
    });
    this.div.setAttribute("data-points", String(drawn));
    var short = function (v) { return String(parseFloat(v.toPrecision(4))); };
    this.info.textContent = " x: " + short(this.view[0]) + " to " + short(this.view[1]) +
      (spec.note ? "  \u00b7  " + spec.note : "") + "  \u00b7  wheel: zoom, drag: pan, double click: reset";
  };

  Plot.prototype.bind = function () {
    var self = this, svg = this.svg, drag = null;
    var at = function (ev) { var b = svg.getBoundingClientRect(); return (ev.clientX - b.left) * self.W / b.width; };
    svg.addEventListener("wheel", function (ev) {
      ev.preventDefault();
      var x = self.xOf(at(ev)), f = ev.deltaY < 0 ? 1 / 1.25 : 1.25;
      var a = x - (x - self.view[0]) * f, b = x + (self.view[1] - x) * f;
      var full = self.full, span = full[1] - full[0];
      if (b - a >= span) { a = full[0]; b = full[1]; }
      if (b - a < span * 1e-6) { return; }
      self.view = [Math.max(full[0], a), Math.min(full[1], b)]; self.draw();
    }, { passive: false });
    svg.addEventListener("mousedown", function (ev) { drag = { px: at(ev), view: self.view.slice() }; });
    window.addEventListener("mouseup", function () { drag = null; });
    svg.addEventListener("mousemove", function (ev) {
      if (!drag) { return; }
      var d = (at(ev) - drag.px) / (self.W - M.l - M.r) * (drag.view[1] - drag.view[0]);
      var a = drag.view[0] - d, b = drag.view[1] - d, full = self.full;
      if (a < full[0]) { b += full[0] - a; a = full[0]; }
      if (b > full[1]) { a -= b - full[1]; b = full[1]; }
      self.view = [Math.max(full[0], a), b]; self.draw();
    });
    svg.addEventListener("dblclick", function () { self.view = self.full.slice(); self.draw(); });
  };

  Plot.prototype.zoom = function (a, b) { this.view = [a, b]; this.draw(); };

  window.zplots = [];
  document.querySelectorAll("div.zplot").forEach(function (div) {
    var spec = JSON.parse(document.getElementById(div.getAttribute("data-spec")).textContent);
    window.zplots.push(new Plot(div, spec));
  });
})();
