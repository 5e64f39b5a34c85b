// Tile pictures drawn by mjcore's own code as SVG (no image files): licence as mjcore (MIT),
// see TILES-LICENSE.txt beside this file.
"use strict";

const SVG_NS = "http://www.w3.org/2000/svg";
const PIN_COLORS = ["#1b4f9c", "#1f7a3a", "#c62828"];
// dot positions (in a 30x40 face) per count, shared by pin and sou
const LAYOUT = {
  1: [[15, 20]], 2: [[15, 11], [15, 29]], 3: [[8, 9], [15, 20], [22, 31]],
  4: [[9, 11], [21, 11], [9, 29], [21, 29]],
  5: [[8, 9], [22, 9], [15, 20], [8, 31], [22, 31]],
  6: [[9, 8], [21, 8], [9, 20], [21, 20], [9, 32], [21, 32]],
  7: [[7, 7], [15, 10], [23, 13], [9, 23], [21, 23], [9, 33], [21, 33]],
  8: [[9, 6], [21, 6], [9, 15], [21, 15], [9, 25], [21, 25], [9, 34], [21, 34]],
  9: [[7, 8], [15, 8], [23, 8], [7, 20], [15, 20], [23, 20], [7, 32], [15, 32], [23, 32]],
};
const HONOURS = { 1: ["E", "#222"], 2: ["S", "#222"], 3: ["W", "#222"], 4: ["N", "#222"],
  6: ["G", "#1f7a3a"], 7: ["R", "#c62828"] };
const NAMES = { m: "characters", p: "dots", s: "bamboo", z: "honour", f: "bonus" };
const HONOUR_NAMES = ["", "East", "South", "West", "North", "White", "Green", "Red"];

function el(name, attrs) {
  const e = document.createElementNS(SVG_NS, name);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  return e;
}

function tileLabel(t) {
  const n = t[0], s = t[1];
  if (s === "z") return HONOUR_NAMES[+n] || t;
  if (s === "f") return (+n <= 4 ? "flower " : "season ") + (((+n - 1) % 4) + 1);
  if (n === "0") return "red 5 " + NAMES[s];
  return n + " " + NAMES[s];
}

// An SVG picture of tile `t` ("5m", "0p" red five, "7z", "3f", "?" a hidden tile).
function tileSvg(t, size) {
  const h = size || 40;
  const svg = el("svg", { viewBox: "0 0 30 40", width: (h * 3) / 4, height: h,
    class: "tile", role: "img" });
  svg.appendChild(el("rect", { x: 0.75, y: 0.75, width: 28.5, height: 38.5, rx: 3.5,
    fill: t === "?" ? "#5b7fa8" : "#fbf8ef", stroke: "#8a8370", "stroke-width": 1.5 }));
  const title = el("title", {});
  title.textContent = t === "?" ? "hidden tile" : tileLabel(t);
  svg.appendChild(title);
  svg.setAttribute("aria-label", title.textContent);
  if (t === "?") return svg;
  const red = t[0] === "0";
  const n = red ? 5 : +t[0];
  const s = t[1];
  if (s === "m") {
    const num = el("text", { x: 15, y: 21, "text-anchor": "middle", "font-size": 18,
      "font-family": "sans-serif", "font-weight": "bold", fill: red ? "#c62828" : "#222" });
    num.textContent = String(n);
    svg.appendChild(num);
    // the characters suit mark: a red double stroke
    svg.appendChild(el("path", { d: "M7 29 h16 M9 33 h12 M15 26 v10", stroke: "#c62828",
      "stroke-width": 2, fill: "none", "stroke-linecap": "round" }));
  } else if (s === "p") {
    LAYOUT[n].forEach(([x, y], i) => {
      const c = red ? "#c62828" : PIN_COLORS[(i + n) % 3];
      const r = n === 1 ? 10 : n <= 4 ? 5.5 : 4;
      svg.appendChild(el("circle", { cx: x, cy: y, r: r, fill: "none", stroke: c,
        "stroke-width": 2 }));
      svg.appendChild(el("circle", { cx: x, cy: y, r: r / 3, fill: c }));
    });
  } else if (s === "s") {
    LAYOUT[n].forEach(([x, y], i) => {
      const c = red ? "#c62828" : (n === 1 || (n === 9 && i === 4)) ? "#c62828" : "#1f7a3a";
      const hgt = n === 1 ? 22 : n <= 6 ? 10 : 7;
      svg.appendChild(el("rect", { x: x - 2, y: y - hgt / 2, width: 4, height: hgt, rx: 1.5,
        fill: c }));
    });
  } else if (s === "z") {
    if (n === 5) {
      svg.appendChild(el("rect", { x: 7, y: 9, width: 16, height: 22, fill: "none",
        stroke: "#1b4f9c", "stroke-width": 2.5 }));
    } else {
      const [ch, c] = HONOURS[n];
      const txt = el("text", { x: 15, y: 27, "text-anchor": "middle", "font-size": 20,
        "font-family": "sans-serif", "font-weight": "bold", fill: c });
      txt.textContent = ch;
      svg.appendChild(txt);
    }
  } else if (s === "f") {
    const c = n <= 4 ? "#c2185b" : "#6a1b9a";
    for (let i = 0; i < 5; i++) {
      const a = (i * 2 * Math.PI) / 5;
      svg.appendChild(el("circle", { cx: 15 + 6 * Math.sin(a), cy: 17 - 6 * Math.cos(a),
        r: 4, fill: c, opacity: 0.8 }));
    }
    svg.appendChild(el("circle", { cx: 15, cy: 17, r: 2.5, fill: "#f9a825" }));
    const num = el("text", { x: 15, y: 36, "text-anchor": "middle", "font-size": 9,
      "font-family": "sans-serif", fill: c });
    num.textContent = String(((n - 1) % 4) + 1);
    svg.appendChild(num);
  }
  if (red) svg.appendChild(el("circle", { cx: 25, cy: 5, r: 2, fill: "#c62828" }));
  return svg;
}

// mpsz text -> tile names, in order ("123m0p" -> ["1m","2m","3m","0p"]); null if bad
function splitTiles(text) {
  const out = [];
  let digits = [];
  for (const ch of text.replace(/\s+/g, "")) {
    if (/[0-9]/.test(ch)) digits.push(ch);
    else if (/[mpszf]/.test(ch)) {
      if (!digits.length) return null;
      for (const d of digits) out.push(d + ch);
      digits = [];
    } else return null;
  }
  return digits.length ? null : out;
}

// tile names -> compact mpsz ("1m","2m","5p" -> "12m5p"), in the order given
function joinTiles(tiles) {
  let out = "", run = "", suit = "";
  for (const t of tiles) {
    if (t[1] !== suit && run) { out += run + suit; run = ""; }
    suit = t[1];
    run += t[0];
  }
  return run ? out + run + suit : out;
}

const ORDER = { m: 0, p: 1, s: 2, z: 3, f: 4 };
function sortTiles(tiles) {
  return tiles.slice().sort((a, b) => (ORDER[a[1]] - ORDER[b[1]]) ||
    ((a[0] === "0" ? 5.5 : +a[0]) - (b[0] === "0" ? 5.5 : +b[0])));
}
