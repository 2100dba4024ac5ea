// The play page: draws the position the server describes and turns clicks into moves.
// Everything the page knows comes from GET /api/state (or /api/replay) and the answers to
// POSTs; the server checks every move, so the page never decides what is legal. Three
// modes share it: "play" (humans against agents), "watch" (agents only, at a chosen pace)
// and "replay" (recorded games, one position at a time; "replays" is their list).
"use strict";

const MAX_MOVE_BUTTONS = 400;  // more buttons than this make the list useless; filter instead
const SVG = "http://www.w3.org/2000/svg";
const $ = (id) => document.getElementById(id);
let current = null;             // the last state received
let busy = false;
let positionEdited = false;     // the player typed in the position box: keep their text
let agentMoves = [];            // the agents' moves since the player's last action
let selected = null;            // the id of the board thing clicked first, or null
let byOrigin = new Map();       // origin id -> (target id -> [moves])
let direct = new Map();         // target id -> [moves played by a click on it alone]
let watching = { paused: false, running: false };
let replay = { game: null, index: 0, count: 0, wanted: null };

// A pause before each agent move so that a player can follow them; ?pace=MS sets it.
const PACE_FROM_ADDRESS = (() => {
  const pace = new URLSearchParams(window.location.search).get("pace");
  return pace !== null && /^[0-9]{1,5}$/.test(pace) ? Number(pace) : null;
})();
let paceMs = PACE_FROM_ADDRESS ?? 400;

function seatName(seat) { return `player_${seat}`; }

function seatRole(state, seat) {
  const player = (state.players || [])[seat];
  if (player && player.role === "agent") return state.mode === "play" ? "agent" : player.by;
  if (!state.human_seats || !state.human_seats.includes(seat)) return "agent";
  return state.human_seats.length > 1 ? "human" : "you";
}

async function api(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  let data;
  try {
    data = await response.json();
  } catch (error) {
    throw new Error(`the server answered ${response.status} without JSON`);
  }
  if (!response.ok) throw new Error(data.error || `the server answered ${response.status}`);
  return data;
}

function showError(message) {
  const box = $("error");
  box.textContent = message;
  box.hidden = !message;
}

function setBusy(value, message) {
  busy = value;
  document.body.dataset.busy = value ? "1" : "0";
  for (const element of document.querySelectorAll("#side button, #move-input")) {
    element.disabled = value || (current !== null && needsHumanTurn(element) && !current.human_to_move);
  }
  if (value && message) $("status").textContent = message;
}

function needsHumanTurn(element) {
  return ["move-input", "move-submit", "hint"].includes(element.id) || element.classList.contains("move");
}

function describeMoves(moves) {
  return moves.map((m) => `${seatName(m.seat)} ${m.text}`).join(", ");
}

// ------------------------------------------------------------------ drawing the board
function svgElement(tag, attributes) {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value !== undefined && value !== null) element.setAttribute(name, String(value));
  }
  return element;
}

function styleOf(shape) {
  return {
    fill: shape.fill ?? (shape.shape === "line" ? "none" : "#ffffff"),
    stroke: shape.stroke ?? "none",
    "stroke-width": shape.width,
    "stroke-dasharray": shape.dash,
    opacity: shape.opacity,
  };
}

function textElement(x, y, words, size, fill, anchor, bold) {
  const element = svgElement("text", {
    x, y, "font-size": size, fill: fill || "#141414", "text-anchor": anchor || "middle",
    "font-weight": bold ? "700" : undefined,
  });
  element.textContent = words;
  return element;
}

// One shape of a scene (see sky_envs/core/scene.py) as SVG elements.
function drawShape(shape) {
  const out = [];
  let centre = null;
  if (shape.shape === "rect") {
    out.push(svgElement("rect", { x: shape.x, y: shape.y, width: shape.w, height: shape.h, rx: shape.r, ...styleOf(shape) }));
    centre = [shape.x + shape.w / 2, shape.y + shape.h / 2];
  } else if (shape.shape === "circle") {
    out.push(svgElement("circle", { cx: shape.x, cy: shape.y, r: shape.r, ...styleOf(shape) }));
    centre = [shape.x, shape.y];
  } else if (shape.shape === "polygon") {
    out.push(svgElement("polygon", { points: shape.points.map((p) => p.join(",")).join(" "), ...styleOf(shape) }));
    const n = shape.points.length;
    centre = [shape.points.reduce((s, p) => s + p[0], 0) / n, shape.points.reduce((s, p) => s + p[1], 0) / n];
  } else if (shape.shape === "line") {
    out.push(svgElement("polyline", { points: shape.points.map((p) => p.join(",")).join(" "), ...styleOf(shape) }));
  } else if (shape.shape === "text") {
    out.push(textElement(shape.x, shape.y, shape.text, shape.size, shape.fill, shape.anchor, shape.bold));
  }
  if (shape.label && centre) {
    const size = shape.label_size || 12;
    const label = textElement(centre[0], centre[1] + size * 0.36, shape.label, size, shape.label_fill, "middle", shape.bold);
    out.push(label);
  }
  return out;
}

function drawBoard(state) {
  const scene = state.board;
  const holder = $("board");
  if (!scene) { holder.replaceChildren(); return; }
  const svg = svgElement("svg", {
    viewBox: `0 0 ${scene.width} ${scene.height}`, class: "board-svg", role: "img",
    "aria-label": scene.caption || "the position", preserveAspectRatio: "xMidYMin meet",
  });
  for (const item of scene.items) {
    if (item.id !== undefined) {
      const group = svgElement("g", { class: "thing", "data-id": item.id });
      const title = svgElement("title", {});
      title.textContent = item.title || item.id;
      group.append(title);
      for (const shape of item.shapes) group.append(...drawShape(shape));
      svg.append(group);
    } else {
      svg.append(...drawShape(item));
    }
  }
  svg.append(svgElement("g", { class: "marks" }));
  holder.replaceChildren(svg);
  holder.style.setProperty("--board-ratio", String(scene.width / scene.height));
  $("caption").textContent = scene.caption || "";
  indexMoves(state);
  markBoard(state);
}

function things() {
  return new Map([...document.querySelectorAll("#board g.thing")].map((g) => [g.dataset.id, g]));
}

// The moves a click can play: by their origin, and those played by a click on their target.
function indexMoves(state) {
  byOrigin = new Map();
  direct = new Map();
  selected = null;
  if (!canClick(state)) return;
  for (const move of state.board_moves || []) {
    for (const [origin, target] of move.ways) {
      if (origin === null) {
        if (!direct.has(target)) direct.set(target, []);
        direct.get(target).push(move);
      } else {
        if (!byOrigin.has(origin)) byOrigin.set(origin, new Map());
        const targets = byOrigin.get(origin);
        if (!targets.has(target)) targets.set(target, []);
        targets.get(target).push(move);
      }
    }
  }
}

function canClick(state) {
  return state && state.mode === "play" && state.human_to_move && !busy;
}

function mark(svg, group, kind) {
  const box = group.getBBox();
  const pad = 2.5;
  const layer = svg.querySelector("g.marks");
  if (kind === "target") {
    layer.append(svgElement("rect", {
      class: "mark mark-target", x: box.x - pad, y: box.y - pad, width: box.width + 2 * pad,
      height: box.height + 2 * pad, rx: 6,
    }));
    layer.append(svgElement("circle", {
      class: "mark mark-dot", cx: box.x + box.width / 2, cy: box.y + box.height / 2,
      r: Math.max(4, Math.min(box.width, box.height) * 0.14),
    }));
  } else {
    layer.append(svgElement("rect", {
      class: `mark mark-${kind}`, x: box.x - pad, y: box.y - pad, width: box.width + 2 * pad,
      height: box.height + 2 * pad, rx: 6,
    }));
  }
}

// Classes and outlines: the last move, what can be clicked, the selection and its targets.
function markBoard(state) {
  const svg = document.querySelector("#board svg");
  if (!svg) return;
  svg.querySelector("g.marks").replaceChildren();
  const all = things();
  for (const group of all.values()) group.classList.remove("last", "origin", "direct", "selected", "target");
  for (const id of state.last_move_ids || []) {
    const group = all.get(id);
    if (group) { group.classList.add("last"); mark(svg, group, "last"); }
  }
  if (!canClick(state)) { $("board-help").textContent = boardHelp(state); return; }
  for (const id of byOrigin.keys()) all.get(id)?.classList.add("origin");
  for (const id of direct.keys()) all.get(id)?.classList.add("direct");
  if (selected !== null && all.has(selected)) {
    const group = all.get(selected);
    group.classList.add("selected");
    mark(svg, group, "selected");
    for (const target of byOrigin.get(selected).keys()) {
      const targetGroup = all.get(target);
      if (targetGroup) { targetGroup.classList.add("target"); mark(svg, targetGroup, "target"); }
    }
  }
  $("board-help").textContent = boardHelp(state);
}

function boardHelp(state) {
  if (!state || state.mode !== "play") return "";
  if (!state.human_to_move) return state.is_over ? "" : "The agents are moving…";
  if (selected !== null) return `${selected} selected: click a highlighted place, or click it again to let go.`;
  const parts = [];
  if (byOrigin.size) parts.push("click a piece to see where it can go");
  if (direct.size) parts.push("click a highlighted place to play there");
  return parts.length ? parts.join("; ") + "." : "";
}

function onBoardClick(event) {
  const group = event.target.closest ? event.target.closest("g.thing") : null;
  if (!current || !canClick(current)) return;
  closeChoice();
  const id = group ? group.dataset.id : null;
  if (selected !== null) {
    const moves = id !== null ? byOrigin.get(selected).get(id) : undefined;
    if (moves) { choose(moves, `${selected} → ${id}`); return; }
    if (id === selected) { selected = null; markBoard(current); return; }
  }
  if (id !== null && byOrigin.has(id)) {
    selected = id;
  } else if (id !== null && direct.has(id)) {
    selected = null;
    choose(direct.get(id), id);
    return;
  } else {
    selected = null;
  }
  markBoard(current);
}

// One move: play it. Several (one origin and target, several moves): ask which.
function choose(moves, where) {
  const unique = [...new Map(moves.map((m) => [m.action, m])).values()];
  if (unique.length === 1) { playMove(unique[0].action); return; }
  $("choice-title").textContent = `Which move ${where}?`;
  const list = $("choice-moves");
  list.replaceChildren();
  for (const move of unique) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "choice";
    button.dataset.action = String(move.action);
    button.textContent = move.text;
    button.title = move.words;
    const words = document.createElement("span");
    words.className = "words";
    words.textContent = move.words;
    button.append(words);
    button.addEventListener("click", () => { closeChoice(); playMove(move.action); });
    list.append(button);
  }
  $("choice").hidden = false;
}

function closeChoice() {
  $("choice").hidden = true;
  $("choice-moves").replaceChildren();
}

// ------------------------------------------------------------------ the rest of the page
function renderPlayers(state) {
  const box = $("players");
  box.replaceChildren();
  for (const player of state.players || []) {
    const chip = document.createElement("span");
    chip.className = "player" + (player.seat === state.current_seat ? " to-move" : "");
    chip.dataset.seat = String(player.seat);
    for (const colour of player.colours) {
      const swatch = document.createElement("span");
      swatch.className = "swatch";
      swatch.style.background = colour;
      chip.append(swatch);
    }
    const name = document.createElement("span");
    name.textContent = `${player.name} (${player.role === "agent" ? player.by : player.role})`
      + (player.label && player.label.length <= 8 ? ` ${player.label}` : "");
    chip.append(name);
    box.append(chip);
  }
}

function statusLine(state) {
  if (state.mode === "replay") {
    const move = state.index > 0 ? state.moves[state.index - 1] : null;
    const head = move ? `Move ${state.index} of ${state.count - 1}: ${seatName(move.seat)} (${move.by}) played ${move.text}`
      : `Start of the game (${state.count - 1} moves)`;
    return state.index === state.count - 1 && state.result ? `${head}. ${state.result}` : head;
  }
  if (state.is_over) return `Game over. ${state.result || ""}`;
  const seat = state.current_seat;
  if (state.human_to_move) return `${seatName(seat)} (${seatRole(state, seat)}) to move`;
  if (state.mode === "watch") {
    const by = (state.players[seat] || {}).by || "agent";
    return `${seatName(seat)} (${by}) to move` + (watching.paused ? " — paused" : "");
  }
  return `${seatName(seat)} (agent) to move`;
}

function render(state, replies) {
  current = state;
  closeChoice();
  document.body.dataset.mode = state.mode;
  document.title = `sky_envs: ${state.env_id}`;
  const modeWords = { play: "", watch: " (watching)", replay: " (replay)" }[state.mode] || "";
  $("title").textContent = `${state.env_id}: ${state.num_players} players${modeWords}`;
  $("status").textContent = statusLine(state);
  $("replies").textContent = replies && replies.length && state.mode === "play" ? `Agent played: ${describeMoves(replies)}` : "";
  drawBoard(state);
  renderPlayers(state);
  $("board-text").textContent = state.board_text;
  $("notation").textContent = state.notation_help || "";
  $("notation-box").hidden = !state.notation_help;
  $("rules").textContent = state.rules || "";
  $("docs-page").textContent = state.docs_page ? `More: ${state.docs_page} in the project docs` : "";
  $("rules-box").hidden = !state.rules;
  $("play-panel").hidden = state.mode !== "play";
  $("watch-controls").hidden = state.mode !== "watch";
  $("replay-controls").hidden = state.mode !== "replay";
  $("load").hidden = state.mode !== "play";
  if (state.mode === "replay") {
    $("position").value = state.position;
  } else if ($("position-box").open && !positionEdited) {
    fetchPosition();
  }
  renderLegalMoves();
  renderScores(state);
  renderLog(state, replies || []);
  renderResult(state);
  $("hint-text").textContent = "";
  document.body.dataset.version = String(state.version);
}

function renderResult(state) {
  const shown = state.is_over || (state.mode === "replay" && state.index === state.count - 1);
  $("result-box").hidden = !shown;
  $("result-words").textContent = shown ? (state.result_words || state.result || "") : "";
}

function renderLegalMoves() {
  const list = $("legal-moves");
  const filter = $("filter").value.trim().toLowerCase();
  const moves = current ? current.legal_moves || [] : [];
  const shown = moves.filter(([, text]) => text.toLowerCase().includes(filter));
  list.replaceChildren();
  for (const [action, text] of shown.slice(0, MAX_MOVE_BUTTONS)) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "move";
    button.setAttribute("role", "listitem");
    button.dataset.action = String(action);
    button.textContent = text;
    button.disabled = busy;
    button.addEventListener("click", () => playMove(action));
    list.append(button);
  }
  let count = `${moves.length} legal move${moves.length === 1 ? "" : "s"}`;
  if (filter) count += `, ${shown.length} match${shown.length === 1 ? "es" : ""} the filter`;
  if (shown.length > MAX_MOVE_BUTTONS) count += ` (first ${MAX_MOVE_BUTTONS} shown: filter to see the rest)`;
  if (!current || !current.human_to_move) count = "";
  $("legal-count").textContent = count;
}

// One row per seat: the game's per-seat counts (stones, scores, flags...) while it runs,
// and the final reward once it is over; the game's other counts go on one line below.
function renderScores(state) {
  const table = $("scores");
  const info = state.info || {};
  const perSeat = Object.keys(info).filter(
    (key) => Array.isArray(info[key]) && info[key].length === state.num_players
      && info[key].every((value) => typeof value !== "object"));
  const head = table.tHead || table.createTHead();
  head.replaceChildren();
  const headRow = head.insertRow();
  for (const title of ["seat", ...perSeat, ...(state.is_over ? ["final"] : [])]) {
    const cell = document.createElement("th");
    cell.textContent = title;
    headRow.append(cell);
  }
  const body = table.tBodies[0];
  body.replaceChildren();
  for (let seat = 0; seat < state.num_players; seat++) {
    const row = body.insertRow();
    if (seat === state.current_seat) row.className = "to-move";
    row.insertCell().textContent = `${seatName(seat)} (${seatRole(state, seat)})`;
    for (const key of perSeat) row.insertCell().textContent = String(info[key][seat]);
    if (state.is_over) row.insertCell().textContent = String(state.scores[seat]);
  }
  const others = Object.keys(info).filter((key) => !perSeat.includes(key));
  $("game-info").textContent = others.map((key) => `${key}: ${JSON.stringify(info[key])}`).join(", ");
  $("result").textContent = state.is_over && state.result ? state.result : "";
}

function renderLog(state, replies) {
  const log = $("move-log");
  log.replaceChildren();
  const latest = state.moves.length - replies.length;
  state.moves.forEach((move, index) => {
    const item = document.createElement("li");
    item.textContent = `${seatName(move.seat)}: ${move.text}` + (move.by === "human" ? "" : ` (${move.by})`);
    if (!(state.human_seats || []).includes(move.seat)) item.classList.add("agent");
    if (index >= latest && replies.length) item.classList.add("latest");
    if (state.mode === "replay") {
      if (index === state.index - 1) item.classList.add("current");
      if (index >= state.index) item.classList.add("future");
      item.addEventListener("click", () => showReplay(index + 1));
    }
    log.append(item);
  });
  const currentItem = log.querySelector("li.current");
  if (currentItem) {
    log.scrollTop = Math.max(0, currentItem.offsetTop - log.offsetTop - log.clientHeight / 2);
  } else {
    log.scrollTop = log.scrollHeight;
  }
}

// ------------------------------------------------------------------ playing
// One action at a time: a second click while the server thinks is ignored. After the
// action the agents move, one request per move, so each one is drawn as it comes.
async function act(message, request) {
  if (busy) return;
  setBusy(true, message);
  showError("");
  agentMoves = [];
  try {
    const answer = await request();
    await letAgentsMove();
    return answer;
  } catch (error) {
    showError(error.message);
  } finally {
    setBusy(false);
    if (current) render(current, agentMoves);
  }
}

async function letAgentsMove() {
  while (current && current.agent_to_move && current.mode === "play") {
    render(current, agentMoves);
    setBusy(true, `${seatName(current.current_seat)} (agent) is thinking…`);
    await sleep(paceMs);
    const answer = await api("POST", "/api/advance", {});
    agentMoves.push(...answer.replies);
    current = answer.state;
  }
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function playMove(move) {
  await act("Playing…", async () => {
    current = (await api("POST", "/api/move", { move, version: current.version })).state;
    $("move-input").value = "";
  });
}

// The position text is fetched only when asked for: in Sky Towers it shows hidden cards.
async function fetchPosition() {
  if (current && current.mode === "replay") return;
  try {
    $("position").value = (await api("GET", "/api/position")).position;
    positionEdited = false;
  } catch (error) {
    showError(error.message);
  }
}

function simple(path, message, after) {
  return () => act(message, async () => {
    const answer = await api("POST", path, {});
    current = answer.state;
    if (after) after(answer);
  });
}

// ------------------------------------------------------------------ watching
// Agents move one request at a time, paced by the speed control; Pause stops after the
// move in progress, Step plays one move while paused.
async function watchLoop() {
  if (watching.running) return;
  watching.running = true;
  try {
    while (current && current.mode === "watch" && current.agent_to_move && !watching.paused) {
      await sleep(paceMs);
      if (watching.paused) break;
      await advanceOnce();
    }
  } finally {
    watching.running = false;
    if (current) $("status").textContent = statusLine(current);
  }
}

async function advanceOnce() {
  setBusy(true);
  try {
    const answer = await api("POST", "/api/advance", {});
    render(answer.state, answer.replies);
    showError("");
  } catch (error) {
    showError(error.message);
    watching.paused = true;
    $("pause").textContent = "Play";
  } finally {
    setBusy(false);
  }
}

function setupWatch() {
  $("pause").addEventListener("click", () => {
    watching.paused = !watching.paused;
    $("pause").textContent = watching.paused ? "Play" : "Pause";
    if (!watching.paused) watchLoop();
    else if (current) $("status").textContent = statusLine(current);
  });
  $("step").addEventListener("click", async () => {
    if (!watching.paused) { watching.paused = true; $("pause").textContent = "Play"; }
    while (watching.running) await sleep(20);
    if (current && current.agent_to_move && !busy) await advanceOnce();
  });
  $("speed").addEventListener("change", () => { paceMs = Number($("speed").value); });
  $("watch-new").addEventListener("click", async () => {
    watching.paused = true;
    while (watching.running) await sleep(20);
    setBusy(true, "Starting a new game…");
    try {
      render((await api("POST", "/api/new", {})).state, []);
    } catch (error) {
      showError(error.message);
    } finally {
      setBusy(false);
    }
    watching.paused = false;
    $("pause").textContent = "Pause";
    watchLoop();
  });
}

function pickSpeed(ms) {
  const select = $("speed");
  const options = [...select.options].map((option) => Number(option.value));
  if (!options.includes(ms)) {
    const option = document.createElement("option");
    option.value = String(ms);
    option.textContent = `${ms / 1000} s a move`;
    select.append(option);
  }
  select.value = String(ms);
}

// ------------------------------------------------------------------ replays
async function showReplay(index) {
  if (replay.game === null) return;
  replay.wanted = Math.max(0, Math.min(index, Math.max(replay.count - 1, 0)));
  if (busy) return;          // the request in flight shows the latest wanted position next
  setBusy(true);
  try {
    while (replay.wanted !== null) {
      const wanted = replay.wanted;
      replay.wanted = null;
      const query = new URLSearchParams({ game: replay.game, index: String(wanted) });
      const state = await api("GET", `/api/replay?${query}`);
      replay.index = state.index;
      replay.count = state.count;
      render(state, []);
      const slider = $("slider");
      slider.max = String(state.count - 1);
      slider.value = String(state.index);
      $("replay-position").textContent = `${state.index} / ${state.count - 1}`;
      showError("");
    }
  } catch (error) {
    showError(error.message);
  } finally {
    setBusy(false);
  }
}

async function openReplay(name, index) {
  replay.game = name;
  replay.count = 0;
  $("library").hidden = true;
  $("board-section").hidden = false;
  $("side").hidden = false;
  replay.count = index + 1;
  await showReplay(index);
}

function showLibrary(list) {
  current = null;
  document.body.dataset.mode = "replays";
  $("title").textContent = `Recorded games${list.folder ? ": " + list.folder : ""}`;
  $("status").textContent = `${list.games.length} game${list.games.length === 1 ? "" : "s"}: open one to watch it`;
  $("board-section").hidden = true;
  $("side").hidden = true;
  $("library").hidden = false;
  const body = $("games").tBodies[0];
  body.replaceChildren();
  for (const game of list.games) {
    const row = body.insertRow();
    const open = document.createElement("button");
    open.type = "button";
    open.className = "open-game";
    open.dataset.name = game.name;
    open.textContent = game.name;
    open.disabled = Boolean(game.error);
    open.addEventListener("click", () => openReplay(game.name, 0));
    row.insertCell().append(open);
    if (game.error) {
      const cell = row.insertCell();
      cell.colSpan = 4;
      cell.textContent = game.error;
      continue;
    }
    row.insertCell().textContent = game.env_id;
    row.insertCell().textContent = game.players.join(" vs ");
    row.insertCell().textContent = String(game.moves);
    row.insertCell().textContent = game.result;
  }
  document.body.dataset.version = "0";
}

function setupReplay(list) {
  $("first").addEventListener("click", () => showReplay(0));
  $("back").addEventListener("click", () => showReplay(replay.index - 1));
  $("forward").addEventListener("click", () => showReplay(replay.index + 1));
  $("last").addEventListener("click", () => showReplay(replay.count - 1));
  $("slider").addEventListener("input", () => showReplay(Number($("slider").value)));
  $("to-library").hidden = list.games.length < 2;
  $("to-library").addEventListener("click", () => { replay.game = null; showLibrary(list); });
  document.addEventListener("keydown", (event) => {
    if (replay.game === null || event.target.closest("input, textarea, select")) return;
    if (event.key === "ArrowLeft") showReplay(replay.index - 1);
    if (event.key === "ArrowRight") showReplay(replay.index + 1);
  });
}

// ------------------------------------------------------------------ start
function setupPlay() {
  $("move-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const text = $("move-input").value.trim();
    if (!text) { showError("Type a move first, or choose one from the list."); return; }
    playMove(text);
  });
  $("filter").addEventListener("input", renderLegalMoves);
  $("undo").addEventListener("click", simple("/api/undo", "Undoing…", (answer) => {
    if (!answer.undone) showError("Nothing to undo.");
  }));
  $("new-game").addEventListener("click", simple("/api/new", "Starting a new game…"));
  $("hint").addEventListener("click", () => act("Asking the agent…", async () => {
    const answer = await api("POST", "/api/hint", {});
    current = answer.state;
    return answer;
  }).then((answer) => {
    if (answer) $("hint-text").textContent = `Hint: ${answer.hint[1]}`;
  }));
  $("position").addEventListener("input", () => { positionEdited = true; });
  $("load").addEventListener("click", () => act("Loading the position…", async () => {
    current = (await api("POST", "/api/load", { position: $("position").value })).state;
    positionEdited = false;
  }));
}

async function setup() {
  $("board").addEventListener("click", onBoardClick);
  const letGo = () => {
    closeChoice();
    selected = null;        // start again from the first click
    if (current) markBoard(current);
  };
  $("choice-cancel").addEventListener("click", letGo);
  document.addEventListener("keydown", (event) => { if (event.key === "Escape") letGo(); });
  $("position-box").addEventListener("toggle", () => {
    if ($("position-box").open) fetchPosition();
  });
  setupPlay();
  setupWatch();
  let first;
  try {
    first = await api("GET", "/api/state");
  } catch (error) {
    showError(error.message);
    setBusy(false);
    return;
  }
  if (first.mode === "replays") {
    setupReplay(first);
    setBusy(false);
    if (first.games.length === 1 && !first.games[0].error) await openReplay(first.games[0].name, 0);
    else showLibrary(first);
    return;
  }
  if (PACE_FROM_ADDRESS === null && typeof first.pace_ms === "number") paceMs = first.pace_ms;
  if (first.mode === "watch") {
    pickSpeed(paceMs);
    current = first;
    render(first, []);
    setBusy(false);
    watchLoop();
    return;
  }
  await act("Loading…", async () => { current = first; });
}

document.addEventListener("DOMContentLoaded", setup);
