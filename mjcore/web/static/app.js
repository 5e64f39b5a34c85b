// The mjcore web analyser: plain JS over the JSON API (/api/v1), no build step.
"use strict";

const $ = (id) => document.getElementById(id);
const WIND = { E: "WIND_EAST", S: "WIND_SOUTH", W: "WIND_WEST", N: "WIND_NORTH" };
const CLASSICAL = ["classical", "bradfield"];

// -- the API ---------------------------------------------------------------------------------
async function api(path, body) {
  const headers = { "Content-Type": "application/json" };
  const token = $("token").value;
  if (token) headers.Authorization = "Bearer " + token;
  const res = await fetch("/api/v1/" + path, body === undefined ? { headers } :
    { method: "POST", headers, body: JSON.stringify(body) });
  let data = null;
  try { data = await res.json(); } catch (e) { data = null; }
  if (!res.ok) {
    if (res.status === 401) $("token-box").hidden = false;
    const err = (data && data.error) || { message: res.status + " " + res.statusText };
    const info = (err.details && err.details[0]) || {};
    const e = new Error(err.message);
    e.reason = info.reason || "";
    e.field = (info.metadata && info.metadata.field) || "";
    throw e;
  }
  return data;
}

function clearErrors(view) {
  for (const e of view.querySelectorAll(".err")) e.textContent = "";
  for (const e of view.querySelectorAll("[aria-invalid]")) e.removeAttribute("aria-invalid");
}

// the error beside its field: #err-<prefix><field>, else the fallback span
function showError(err, prefix, fallback) {
  let box = $("err-" + prefix + err.field);
  if (!box) box = $(fallback);
  box.textContent = err.message + (err.reason ? " [" + err.reason + "]" : "");
  const input = box.previousElementSibling && box.previousElementSibling.querySelector("input");
  if (input) input.setAttribute("aria-invalid", "true");
}

function tilesInto(box, tiles, size, onClick) {
  for (const [i, t] of tiles.entries()) {
    const svg = tileSvg(t, size);
    if (onClick) {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "tile-btn";
      b.setAttribute("aria-label", svg.getAttribute("aria-label"));
      b.appendChild(svg);
      b.addEventListener("click", () => onClick(t, i));
      box.appendChild(b);
    } else box.appendChild(svg);
  }
}

function pct(x) { return x === null || x === undefined ? "–" : (100 * x).toFixed(2); }
function num(x) { return x === null || x === undefined ? "–" : Math.round(x).toLocaleString("en"); }
function text(tag, s, cls) {
  const e = document.createElement(tag);
  e.textContent = s;
  if (cls) e.className = cls;
  return e;
}

// -- tabs ------------------------------------------------------------------------------------
const TABS = ["analyse", "score", "review"];
function showTab(name) {
  for (const t of TABS) {
    $("tab-" + t).setAttribute("aria-selected", String(t === name));
    $("view-" + t).hidden = t !== name;
  }
  if (location.hash !== "#" + name) history.replaceState(null, "", "#" + name);
}
for (const t of TABS) $("tab-" + t).addEventListener("click", () => showTab(t));
window.addEventListener("hashchange", () => {
  const t = location.hash.slice(1);
  if (TABS.includes(t)) showTab(t);
});
document.querySelector("nav").addEventListener("keydown", (ev) => {
  const i = TABS.findIndex((t) => $("tab-" + t).getAttribute("aria-selected") === "true");
  const j = ev.key === "ArrowRight" ? (i + 1) % 3 : ev.key === "ArrowLeft" ? (i + 2) % 3 : -1;
  if (j >= 0) { showTab(TABS[j]); $("tab-" + TABS[j]).focus(); }
});

// -- rules -----------------------------------------------------------------------------------
async function loadPresets() {
  let names = ["tenhou", "ema", "wrc", "tenhou_sanma"];
  try { names = (await api("presets")).presets.map((p) => p.name); } catch (e) { /* keep */ }
  for (const sel of [$("rules"), $("s-rules")]) {
    sel.textContent = "";
    for (const n of names.concat(sel.id === "rules" ? CLASSICAL : [])) {
      sel.appendChild(new Option(n, n));
    }
  }
}
function isClassical() { return CLASSICAL.includes($("rules").value); }

// -- the analyser ----------------------------------------------------------------------------
function handTiles() { return splitTiles($("hand").value) || []; }

function drawPicker() {
  const box = $("picker");
  box.textContent = "";
  const kinds = [];
  for (const s of "mps") for (let n = 1; n <= 9; n++) kinds.push(n + s);
  for (let n = 1; n <= 7; n++) kinds.push(n + "z");
  if (isClassical()) for (let n = 1; n <= 8; n++) kinds.push(n + "f");
  else kinds.push("0m", "0p", "0s");
  tilesInto(box, kinds, 40, (t) => {
    const tiles = handTiles();
    tiles.push(t);
    $("hand").value = joinTiles(sortTiles(tiles));
    schedule(0);
  });
}

function drawHand() {
  const box = $("hand-tiles");
  box.textContent = "";
  const tiles = splitTiles($("hand").value);
  if (!tiles) return;
  tilesInto(box, tiles, 48, (_t, i) => {
    tiles.splice(i, 1);
    $("hand").value = joinTiles(tiles);
    schedule(0);
  });
  // the called melds, as typed ("pon:555z<2"), each drawn apart
  for (const m of $("melds").value.trim().split(/\s+/).filter(Boolean)) {
    const body = splitTiles(m.includes(":") ? m.split(":")[1].split("<")[0] : m);
    if (!body) continue;
    const g = document.createElement("span");
    g.className = "meld";
    tilesInto(g, body, 40);
    box.appendChild(g);
  }
}

let timer = null;
let generation = 0;
// typing waits for a pause (120 ms); a click asks at once
function schedule(delay) {
  drawHand();
  clearTimeout(timer);
  timer = setTimeout(analyse, delay === undefined ? 120 : delay);
}

function selection() {
  const preset = $("rules").value;
  return preset === "tenhou" ? {} : { preset };
}

let rows = [];
let sortKey = null, sortDown = true;

async function analyse() {
  const mine = ++generation;
  const view = $("view-analyse");
  const handText = [$("hand").value.trim(), $("melds").value.trim()].filter(Boolean).join(" ");
  clearErrors(view);
  if (!handText) { render(null, null); done(handText); return; }
  const req = { hand: handText, visible: [$("visible").value.trim(), $("dora").value.trim()]
    .filter(Boolean).join(""), rules: selection() };
  let a;
  try { a = await api("analyze", req); } catch (err) {
    if (mine !== generation) return;
    // the indicators travel among the visible tiles: an error there is the indicators' when
    // the same hand and visible tiles without them are fine
    if (err.field === "visible" && $("dora").value.trim()) {
      const alone = { ...req, visible: $("visible").value.trim() };
      const fine = await api("analyze", alone).then(() => true, () => false);
      if (mine !== generation) return;
      if (fine) err.field = "dora_indicators";
    }
    showError(err, "", "err-hand");
    render(null, null);
    done(handText);
    return;
  }
  if (mine !== generation) return;
  render(a, null);
  const total = a.closed_tile_count + 3 * (a.meld_count || 0);
  if (!$("use-ev").checked || isClassical() || total < 13) { done(handText); return; }
  $("ev-status").textContent = "Computing expected values…";
  const evReq = { hand: handText, dora_indicators: $("dora").value.trim(),
    visible: $("visible").value.trim(), round_wind: WIND[$("round-wind").value],
    seat_wind: WIND[$("seat-wind").value], rules: selection() };
  try {
    const ev = await api("ev", evReq);
    if (mine !== generation) return;
    render(a, ev);
  } catch (err) {
    if (mine !== generation) return;
    $("ev-status").textContent = "";
    showError(err, "", "err-hand");
  }
  done(handText);
}

// the hand whose answers are all shown (tests and measurements wait for it)
function done(handText) {
  document.body.dataset.shown = handText;
  document.body.dataset.shownAt = String(performance.now());
}

function render(a, ev) {
  $("shanten").textContent = "";
  $("waits").textContent = "";
  $("ev-status").textContent = "";
  $("discards").hidden = true;
  $("chart-box").hidden = true;
  if (!a) return;
  const sh = a.shanten;
  const forms = [["standard", sh.standard], ["seven pairs", sh.chiitoitsu],
    ["thirteen orphans", sh.kokushi]].filter(([, v]) => v !== undefined && v !== null);
  $("shanten").textContent = (a.agari ? "Complete (agari). " : "") + "Shanten " + sh.shanten +
    " — " + forms.map(([n, v]) => n + " " + v).join(", ");
  if (a.waits && a.waits.tiles && a.waits.tiles.length) {
    const w = $("waits");
    w.appendChild(text("span", "Waits (" + a.waits.remaining_count + " left): "));
    for (const t of a.waits.tiles) {
      tilesInto(w, [t.tile], 30);
      w.appendChild(text("span", "×" + t.remaining_count + " ", "count"));
    }
  }
  const uk = {};
  for (const o of a.ukeire.options) uk[o.discard || "-"] = o;
  rows = [];
  if (ev) {
    if (ev.status !== "EXPECTED_VALUE_STATUS_OK") {
      $("ev-status").textContent = "Expected values: " + ev.message;
    }
    for (const d of ev.discards) {
      const key = d.tile ? d.tile.replace("0", "5") : "-";
      const o = uk[key] || { tiles: [], remaining_count: d.necessary_count, shanten: d.shanten };
      rows.push({ tile: d.tile || "-", shanten: d.shanten, ukeire: o.remaining_count,
        tiles: o.tiles.map((t) => t.tile), ev: d.evaluated ? d.ev[0] : null,
        win: d.evaluated ? d.win[0] : null, tenpai: d.evaluated ? d.tenpai[0] : null,
        curve: d.evaluated ? d.win : null });
    }
  } else {
    for (const o of a.ukeire.options) {
      rows.push({ tile: o.discard || "-", shanten: o.shanten, ukeire: o.remaining_count,
        tiles: o.tiles.map((t) => t.tile), ev: null, win: null, tenpai: null, curve: null });
    }
  }
  drawTable();
  drawChart(rows.filter((r) => r.curve).slice(0, 4));
}

function drawTable() {
  const body = $("discards").querySelector("tbody");
  body.textContent = "";
  const sorted = rows.slice();
  if (sortKey) {
    sorted.sort((x, y) => {
      const a = x[sortKey], b = y[sortKey];
      const c = a === null ? 1 : b === null ? -1 : (a < b ? -1 : a > b ? 1 : 0);
      return sortDown ? -c : c;
    });
  }
  for (const r of sorted) {
    const tr = document.createElement("tr");
    const td0 = document.createElement("td");
    if (r.tile !== "-") tilesInto(td0, [r.tile], 32); else td0.textContent = "–";
    td0.dataset.tile = r.tile;
    tr.appendChild(td0);
    tr.appendChild(text("td", String(r.shanten)));
    tr.appendChild(text("td", String(r.ukeire)));
    const tt = document.createElement("td");
    tt.className = "tiles small";
    tilesInto(tt, r.tiles, 22);
    tr.appendChild(tt);
    tr.appendChild(text("td", num(r.ev), "ev"));
    tr.appendChild(text("td", pct(r.win), "win"));
    tr.appendChild(text("td", pct(r.tenpai), "tenpai"));
    body.appendChild(tr);
  }
  $("discards").hidden = rows.length === 0;
}

for (const b of document.querySelectorAll("#discards th button")) {
  b.addEventListener("click", () => {
    const k = b.dataset.key;
    sortDown = sortKey === k ? !sortDown : k !== "shanten" && k !== "tile";
    sortKey = k;
    for (const o of document.querySelectorAll("#discards th")) o.removeAttribute("aria-sort");
    b.parentElement.setAttribute("aria-sort", sortDown ? "descending" : "ascending");
    drawTable();
  });
}

const CURVE_COLORS = ["#1b4f9c", "#c62828", "#1f7a3a", "#6a1b9a"];
function drawChart(best) {
  const svg = $("chart");
  svg.textContent = "";
  if (!best.length) return;
  const W = 420, H = 220, L = 40, B = 30, T = 10, R = 90;
  const turns = best[0].curve.length;
  const top = Math.max(0.05, ...best.flatMap((r) => r.curve));
  const x = (i) => L + (i * (W - L - R)) / Math.max(1, turns - 1);
  const y = (v) => H - B - (v / top) * (H - B - T);
  const line = (x1, y1, x2, y2, c) => svg.appendChild(el("line", { x1, y1, x2, y2,
    stroke: c, "stroke-width": 1 }));
  line(L, H - B, W - R, H - B, "#555");
  line(L, T, L, H - B, "#555");
  for (let k = 0; k <= 4; k++) {
    const v = (top * k) / 4;
    line(L - 3, y(v), W - R, y(v), "#ddd");
    const lab = el("text", { x: L - 5, y: y(v) + 3, "text-anchor": "end", "font-size": 9 });
    lab.textContent = (100 * v).toFixed(0) + "%";
    svg.appendChild(lab);
  }
  for (let i = 0; i < turns; i += 3) {
    const lab = el("text", { x: x(i), y: H - B + 12, "text-anchor": "middle", "font-size": 9 });
    lab.textContent = String(i + 1);
    svg.appendChild(lab);
  }
  const cap = el("text", { x: (L + W - R) / 2, y: H - 4, "text-anchor": "middle",
    "font-size": 10 });
  cap.textContent = "turn";
  svg.appendChild(cap);
  best.forEach((r, j) => {
    const pts = r.curve.map((v, i) => x(i).toFixed(1) + "," + y(v).toFixed(1)).join(" ");
    svg.appendChild(el("polyline", { points: pts, fill: "none", stroke: CURVE_COLORS[j],
      "stroke-width": 2, class: "curve", "data-tile": r.tile }));
    const lab = el("text", { x: W - R + 8, y: T + 14 + 16 * j, "font-size": 11,
      fill: CURVE_COLORS[j] });
    lab.textContent = r.tile === "-" ? "this hand" : "discard " + r.tile;
    svg.appendChild(lab);
  });
  $("chart-box").hidden = false;
}

for (const id of ["hand", "melds", "dora", "visible"]) {
  $(id).addEventListener("input", () => schedule());
}
for (const id of ["round-wind", "seat-wind", "use-ev"]) {
  $(id).addEventListener("change", () => schedule(0));
}
$("rules").addEventListener("change", () => { drawPicker(); schedule(0); });

// -- scoring ---------------------------------------------------------------------------------
const FLAGS = ["riichi", "double_riichi", "ippatsu", "rinshan", "chankan", "haitei", "houtei",
  "tenhou", "chiihou", "renhou"];
for (const f of FLAGS) {
  const l = document.createElement("label");
  l.className = "check";
  const i = document.createElement("input");
  i.type = "checkbox";
  i.id = "s-flag-" + f;
  l.appendChild(i);
  l.appendChild(document.createTextNode(" " + f.replace("_", " ")));
  $("s-flags").appendChild(l);
}

async function scoreRiichi() {
  const view = $("view-score");
  clearErrors(view);
  const out = $("score-out");
  out.textContent = "";
  const situation = {};
  for (const f of FLAGS) if ($("s-flag-" + f).checked) situation[f] = true;
  const req = { hand: $("s-hand").value.trim(), win_tile: $("s-win").value.trim(),
    win_method: $("s-method").value, round_wind: $("s-round").value,
    seat_wind: $("s-seat").value, dora_indicators: $("s-dora").value.trim(),
    ura_indicators: $("s-ura").value.trim(), honba_count: +$("s-honba").value || 0,
    riichi_stick_count: +$("s-sticks").value || 0, situation,
    rules: $("s-rules").value === "tenhou" ? {} : { preset: $("s-rules").value } };
  let r;
  try { r = await api("score", req); } catch (err) {
    showError(err, "s-", "err-s-hand");
    return;
  }
  const head = r.win ? (r.limit_name ? r.limit_name + ", " : "") + r.han + " han " + r.fu +
    " fu: " + r.points.toLocaleString("en") + " points" : "No yaku: not a win";
  out.appendChild(text("h3", head, "score-head"));
  const yt = document.createElement("table");
  yt.id = "yaku";
  yt.appendChild(text("caption", "Yaku"));
  for (const y of r.yaku) {
    const tr = document.createElement("tr");
    tr.appendChild(text("td", y.name + " (" + y.name_japanese + ")"));
    tr.appendChild(text("td", y.han + " han"));
    yt.appendChild(tr);
  }
  out.appendChild(yt);
  const ft = document.createElement("table");
  ft.id = "fu";
  ft.appendChild(text("caption", "Fu"));
  for (const f of r.fu_items) {
    const tr = document.createElement("tr");
    const what = f.kind.replace("FU_ITEM_KIND_", "").toLowerCase().replace(/_/g, " ") +
      (f.tile ? " " + f.tile : "") +
      (f.wait && f.wait !== "WAIT_SHAPE_UNSPECIFIED" ?
        " " + f.wait.replace("WAIT_SHAPE_", "").toLowerCase() : "");
    tr.appendChild(text("td", what));
    tr.appendChild(text("td", f.fu + " fu"));
    ft.appendChild(tr);
  }
  out.appendChild(ft);
  const seats = ["winner", "shimocha", "toimen", "kamicha"];
  out.appendChild(text("p", "Payments: " + r.payments.map((p, i) => seats[i] + " " + p)
    .filter((_s, i) => i > 0).join(", ") + "; changes " + r.deltas.join(" / ")));
  if (r.decomposition) out.appendChild(text("p", "Read as " + r.decomposition.text));
}
$("s-go").addEventListener("click", scoreRiichi);

async function scoreClassical() {
  const view = $("view-score");
  clearErrors(view);
  const out = $("classical-out");
  out.textContent = "";
  const winner = +$("c-winner").value;
  const from = $("c-from").value;
  const req = { hands: [0, 1, 2, 3].map((i) => $("c-hand-" + i).value.trim()),
    winner, win_tile: $("c-win").value.trim(), prevailing_wind: $("c-wind").value,
    conditions: from === "" ? ["CLASSICAL_WIN_CONDITION_SELF_DRAWN"] : [],
    rules: { preset: $("c-rules").value } };
  if (from !== "") req.discarder = +from;
  let r;
  try { r = await api("score_classical", req); } catch (err) {
    showError(err, "c-", err.field === "hands" ? "err-c-hands" : "err-c-other");
    return;
  }
  const names = ["East", "South", "West", "North"];
  const t = document.createElement("table");
  t.id = "deal";
  for (const p of r.players) {
    const tr = document.createElement("tr");
    tr.appendChild(text("th", names[p.seat] + (p.winner ? " (winner)" : "")));
    tr.appendChild(text("td", p.items.map((i) => (i.tiles ? i.tiles + " " : "") +
      (i.limit ? "limit" : i.doubles ? i.doubles + " dbl" : i.points) + " (" + i.reason + ")")
      .join("; ") || "nothing"));
    tr.appendChild(text("td", p.points + " pts × 2^" + p.doubles + " = " + p.score));
    t.appendChild(tr);
  }
  out.appendChild(t);
  out.appendChild(text("p", "Settlement: " + r.net.map((n, i) => names[i] + " " +
    (+n > 0 ? "+" : "") + n).join(", ")));
}
$("c-go").addEventListener("click", scoreClassical);

// -- review ----------------------------------------------------------------------------------
let review = null;

async function runReview() {
  const view = $("view-review");
  clearErrors(view);
  let record = $("r-text").value;
  const file = $("r-file").files[0];
  if (file) record = await file.text();
  $("r-go").disabled = true;
  $("r-summary").textContent = "";
  try {
    review = await api("review", { record, seat: +$("r-seat").value, ev: $("r-ev").checked });
  } catch (err) {
    showError(err, "", "err-record");
    $("review-out").hidden = true;
    return;
  } finally { $("r-go").disabled = false; }
  $("review-out").hidden = false;
  const sel = $("r-hand");
  sel.textContent = "";
  review.hands.forEach((h, i) => sel.appendChild(new Option(h.label, String(i))));
  const tot = review.totals;
  $("r-summary").textContent = review.format + " record, " + review.rules + " rules, " +
    review.hands.length + " hands; seat " + review.seat +
    (review.names[review.seat] ? " (" + review.names[review.seat] + ")" : "") + ": " +
    tot.decisions + " decisions, " + tot.efficiency_matches + " efficiency-best" +
    (review.ev ? ", " + tot.ev_matches + " of " + tot.ev_rated + " EV-best, EV lost " +
      num(tot.ev_loss) : "");
  selectHand(0);
  drawDecisions();
}

function selectHand(i) {
  $("r-hand").value = String(i);
  const h = review.hands[i];
  $("r-step").max = String(h.steps.length - 1);
  setStep(0);
  const t = h.totals;
  const r = h.result;
  const result = !r ? "" : r.type === "draw" ? "; a draw" + (r.reason ? " (" + r.reason + ")" : "")
    : r.winner !== undefined ? "; seat " + r.winner + " won" +
      (r.points ? " " + num(r.points) + " points" : "") : "";
  const net = r && r.deltas ? "; changes " + r.deltas.join(" / ") : "";
  $("r-totals").textContent = "This hand: " + t.decisions + " decisions, ukeire lost " +
    t.ukeire_loss + (review.ev ? ", EV lost " + num(t.ev_loss) : "") + result + net;
}

function setStep(k) {
  const h = review.hands[+$("r-hand").value];
  k = Math.max(0, Math.min(h.steps.length - 1, k));
  $("r-step").value = String(k);
  const s = h.steps[k];
  $("r-action").textContent = (k + 1) + "/" + h.steps.length + ": " + s.action;
  const box = $("table");
  box.textContent = "";
  const n = s.hands.length;
  for (let seat = 0; seat < n; seat++) {
    const row = document.createElement("div");
    row.className = "seat" + (seat === review.seat ? " me" : "") +
      (seat === s.actor ? " actor" : "");
    row.appendChild(text("span", "Seat " + seat + (review.names[seat] ? " " +
      review.names[seat] : ""), "who"));
    const hand = document.createElement("div");
    hand.className = "tiles";
    tilesInto(hand, splitTiles(s.hands[seat]) || [], 30);
    for (const m of s.melds[seat]) {
      const g = document.createElement("span");
      g.className = "meld";
      const body = m.includes(":") ? m.split(":")[1].split("<")[0] : m;
      tilesInto(g, splitTiles(body) || [], 26);
      hand.appendChild(g);
    }
    row.appendChild(hand);
    const river = document.createElement("div");
    river.className = "tiles river";
    for (const d of s.rivers[seat]) {
      const svg = tileSvg(d.tile, 22);
      if (d.called) svg.classList.add("called");
      if (d.riichi) svg.classList.add("riichi");
      river.appendChild(svg);
    }
    row.appendChild(river);
    box.appendChild(row);
  }
  if (s.dora_indicators.length) {
    const d = document.createElement("div");
    d.className = "tiles";
    d.appendChild(text("span", "Dora indicators "));
    tilesInto(d, s.dora_indicators, 26);
    box.appendChild(d);
  }
}

function cost(d) {
  return d.ev && d.ev.ev_loss !== undefined && d.ev.ev_loss !== null ? d.ev.ev_loss :
    (d.efficiency.ukeire_loss || 0) + 100 * (d.efficiency.shanten_loss || 0);
}

function drawDecisions() {
  const body = $("r-decisions").querySelector("tbody");
  body.textContent = "";
  let list = review.decisions.map((d, i) => [d, i]);
  if ($("r-costly").checked) {
    list = list.slice().sort((a, b) => cost(b[0]) - cost(a[0])).slice(0, 10);
  }
  for (const [d] of list) {
    const tr = document.createElement("tr");
    tr.tabIndex = 0;
    tr.appendChild(text("td", review.hands[d.hand_index].label));
    tr.appendChild(text("td", String(d.turn)));
    tr.appendChild(text("td", d.hand, "mono"));
    const made = document.createElement("td");
    tilesInto(made, [d.discard], 26);
    tr.appendChild(made);
    const e = d.efficiency;
    tr.appendChild(text("td", (e.best || []).join(" ") || "–"));
    tr.appendChild(text("td", e.shanten_loss ? "+" + e.shanten_loss + " shanten" :
      String(e.ukeire_loss === undefined ? "–" : e.ukeire_loss)));
    const ev = d.ev || {};
    tr.appendChild(text("td", ev.status === "OK" ? ev.best + " (" + num(ev.best_ev) + ")" :
      ev.status ? ev.status.toLowerCase().replace(/_/g, " ") : "–"));
    tr.appendChild(text("td", ev.status === "OK" ? num(ev.ev_loss) : "–", "ev-loss"));
    const go = () => { selectHand(d.hand_index); setStep(d.step); };
    tr.addEventListener("click", go);
    tr.addEventListener("keydown", (k) => { if (k.key === "Enter") go(); });
    if (cost(d) > 0) tr.className = "lost";
    body.appendChild(tr);
  }
}

$("r-go").addEventListener("click", runReview);
$("r-hand").addEventListener("change", () => selectHand(+$("r-hand").value));
$("r-step").addEventListener("input", () => setStep(+$("r-step").value));
$("r-prev").addEventListener("click", () => setStep(+$("r-step").value - 1));
$("r-next").addEventListener("click", () => setStep(+$("r-step").value + 1));
$("r-costly").addEventListener("change", drawDecisions);

// a token typed in after a 401 asks again
$("token").addEventListener("change", () => schedule(0));

// -- start -----------------------------------------------------------------------------------
(async () => {
  showTab(TABS.includes(location.hash.slice(1)) ? location.hash.slice(1) : "analyse");
  await loadPresets();
  drawPicker();
  const q = new URLSearchParams(location.search);
  if (q.get("hand")) $("hand").value = q.get("hand");
  schedule(0);
  document.body.dataset.ready = "1";
})();
