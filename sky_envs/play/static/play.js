// The play page: draws the state the server sends and posts the human's choices.
// Everything the page knows comes from GET /api/state or the answer to a POST; the server
// checks every move, so the page never decides what is legal.
"use strict";

const MAX_MOVE_BUTTONS = 400;  // more buttons than this make the list useless; filter instead
const $ = (id) => document.getElementById(id);
let current = null;             // the last state received
let busy = false;
let positionEdited = false;     // the player typed in the position box: keep their text
let agentMoves = [];            // the agents' moves since the player's last action

// A pause before each agent move so that a player can follow them; ?pace=MS sets it.
const PACE_MS = (() => {
  const pace = new URLSearchParams(window.location.search).get("pace");
  return pace !== null && /^[0-9]{1,4}$/.test(pace) ? Number(pace) : 400;
})();

function seatName(seat) { return `player_${seat}`; }

function seatRole(state, seat) {
  if (!state.human_seats.includes(seat)) return "agent";
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

function render(state, replies) {
  current = state;
  document.title = `sky_envs: ${state.env_id}`;
  $("title").textContent = `${state.env_id}: ${state.num_players} players`;
  if (state.is_over) {
    $("status").textContent = `Game over. ${state.result || ""}`;
  } else if (state.human_to_move) {
    const seat = state.current_seat;
    $("status").textContent = `${seatName(seat)} (${seatRole(state, seat)}) to move`;
  } else {
    $("status").textContent = `${seatName(state.current_seat)} (agent) to move`;
  }
  $("replies").textContent = replies && replies.length ? `Agent played: ${describeMoves(replies)}` : "";
  $("board").src = `/api/picture.png?v=${state.version}`;
  $("board-text").textContent = state.board_text;
  $("notation").textContent = state.notation_help || "";
  $("notation-box").hidden = !state.notation_help;
  $("rules").textContent = state.rules || "";
  $("docs-page").textContent = state.docs_page ? `More: ${state.docs_page} in the project docs` : "";
  $("rules-box").hidden = !state.rules;
  if ($("position-box").open && !positionEdited) fetchPosition();
  renderLegalMoves();
  renderScores(state);
  renderLog(state, replies || []);
  $("hint-text").textContent = "";
  document.body.dataset.version = String(state.version);
}

function renderLegalMoves() {
  const list = $("legal-moves");
  const filter = $("filter").value.trim().toLowerCase();
  const moves = current ? current.legal_moves : [];
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
    if (!state.human_seats.includes(move.seat)) item.classList.add("agent");
    if (index >= latest && replies.length) item.classList.add("latest");
    log.append(item);
  });
  log.scrollTop = log.scrollHeight;
}

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
  while (current && current.agent_to_move) {
    render(current, agentMoves);
    setBusy(true, `${seatName(current.current_seat)} (agent) is thinking…`);
    await sleep(PACE_MS);
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
  try {
    $("position").value = (await api("GET", "/api/position")).position;
    positionEdited = false;
  } catch (error) {
    showError(error.message);
  }
}

async function refresh() {
  await act("Loading…", async () => {
    current = await api("GET", "/api/state");
  });
}

function simple(path, message, after) {
  return () => act(message, async () => {
    const answer = await api("POST", path, {});
    current = answer.state;
    if (after) after(answer);
  });
}

function setup() {
  $("move-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const text = $("move-input").value.trim();
    if (!text) { showError("Type a move first, or choose one from the list."); return; }
    playMove(text);
  });
  $("filter").addEventListener("input", renderLegalMoves);
  $("board").addEventListener("error", () => showError("The server could not draw the position (see its log)."));
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
  $("position-box").addEventListener("toggle", () => {
    if ($("position-box").open) fetchPosition();
  });
  $("position").addEventListener("input", () => { positionEdited = true; });
  $("load").addEventListener("click", () => act("Loading the position…", async () => {
    current = (await api("POST", "/api/load", { position: $("position").value })).state;
    positionEdited = false;
  }));
  refresh();
}

document.addEventListener("DOMContentLoaded", setup);
