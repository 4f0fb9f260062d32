// arena serve: the lobby. Create a table (a private link per person seat, a watch link) and list the tables.
"use strict";

const variantSelect = document.getElementById("variant");
const playersInput = document.getElementById("players");
const rows = document.getElementById("seat-rows");
let variants = {};

function seatRow(name) {
  const kind = el("select", { "data-seat": name, class: "kind" },
    ...["bot", "person", "random", "model"].map((k) => el("option", { value: k, text: k })));
  const extra = el("input", { type: "text", "data-extra": name, placeholder: "" });
  const sync = () => {
    extra.disabled = kind.value === "bot" || kind.value === "random";
    extra.placeholder = kind.value === "person" ? `their name (default ${name})` : kind.value === "model" ? "provider:model" : "";
  };
  kind.addEventListener("change", sync);
  sync();
  return el("div", { class: "seat-row" }, el("strong", { text: name }), kind, extra);
}

function drawSeats() {
  const v = variants[variantSelect.value];
  const n = Math.max(v.min_players, Math.min(v.max_players, Number(playersInput.value) || v.players));
  const kept = {};
  for (const row of rows.children) {
    const name = row.querySelector("strong").textContent;
    kept[name] = [row.querySelector(".kind").value, row.querySelector("input").value];
  }
  rows.replaceChildren();
  for (const name of v.names.slice(0, n)) {
    const row = seatRow(name);
    if (kept[name]) {
      row.querySelector(".kind").value = kept[name][0];
      row.querySelector("input").value = kept[name][1];
      row.querySelector(".kind").dispatchEvent(new Event("change"));
    }
    rows.append(row);
  }
}

function pickVariant() {
  const v = variants[variantSelect.value];
  playersInput.min = v.min_players;
  playersInput.max = v.max_players;
  playersInput.value = v.players;
  drawSeats();
}

// One click, one table: the button is off while a request is out, and every request of one press
// carries the same Idempotency-Key, so a repeat gets the same table back instead of a second one.
let pending = null;

function newKey() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

async function create(event) {
  event.preventDefault();
  if (pending) return;  // a second click while the first is out
  const button = document.getElementById("create-button");
  pending = newKey();
  button.disabled = true;
  button.textContent = "Creating the table…";
  try {
    await createWith(pending);
  } finally {
    pending = null;
    button.disabled = false;
    button.textContent = "Create the table";
  }
}

async function createWith(key) {
  const error = document.getElementById("create-error");
  error.textContent = "";
  const seats = {};
  for (const row of rows.children) {
    const name = row.querySelector("strong").textContent;
    const kind = row.querySelector(".kind").value;
    const extra = row.querySelector("input").value.trim();
    if (kind === "person") seats[name] = extra ? `person:${extra}` : "person";
    else if (kind === "model") seats[name] = extra;
    else seats[name] = kind;
  }
  const body = { variant: variantSelect.value, players: Number(playersInput.value), seats };
  const seed = document.getElementById("seed").value;
  if (seed !== "") body.seed = Number(seed);
  const timeout = document.getElementById("timeout").value;
  if (timeout !== "") body.timeout = Number(timeout);
  const beat = document.getElementById("beat").value;
  if (beat !== "") body.beat_seconds = Number(beat);
  const wait = document.getElementById("start-wait").value;
  if (wait !== "") body.start_wait = Number(wait);
  const night = document.getElementById("night").value;
  if (night !== "") body.night_seconds = Number(night);
  const pace = document.getElementById("pace").value;
  if (pace !== "" && Number(pace) > 0) body.pace = Number(pace);
  const config = document.getElementById("config").value;
  if (config.trim()) body.config = config;
  let response;
  let answer;
  try {
    const headers = { "Content-Type": "application/json", "Idempotency-Key": key };
    response = await fetch("/api/tables", { method: "POST", headers, body: JSON.stringify(body) });
    answer = await response.json();
  } catch (err) {
    error.textContent = "The server could not be reached: try again.";
    return;
  }
  if (response.status !== 201) { error.textContent = answer.error || `HTTP ${response.status}`; return; }
  const box = document.getElementById("created");
  const list = el("ul", {});
  for (const [name, seat] of Object.entries(answer.seats)) {
    const url = location.origin + seat.url;
    list.append(el("li", {}, `${name}'s private link (give it to that person only): `, el("a", { href: url, "data-seat-link": name, text: url })));
  }
  const watch = location.origin + answer.watch;
  list.append(el("li", {}, "Watch: ", el("a", { href: watch, id: "watch-link", text: watch })));
  const parts = [el("h2", { text: `Table ${answer.table}` }), list];
  if (answer.owner) {  // a table with people waits for them; its maker may start it at once
    const note = el("p", { class: "small", id: "start-note", text: body.start_wait === 0
      ? "The game starts now."
      : `The game and its clocks start when every person has opened their link${body.start_wait ? `, or after ${body.start_wait} s at the latest (a seat whose person has not come plays its defaults)` : ""}, or when you press the button.` });
    const start = el("button", { type: "button", id: "start-now", class: "secondary", text: "Start now, without waiting" });
    start.addEventListener("click", async () => {
      start.disabled = true;
      const r = await fetch(`/api/tables/${answer.table}/start`, { method: "POST", headers: { "X-Owner-Token": answer.owner } });
      note.textContent = r.ok ? "Started." : "The table could not be started.";
      listTables();
    });
    parts.push(note, start);
  }
  box.replaceChildren(...parts);
  listTables();
}

async function listTables() {
  try {
    const response = await fetch("/api/tables", { cache: "no-store" });
    const { tables } = await response.json();
    const body = document.getElementById("tables");
    body.replaceChildren(...tables.map((t) => el("tr", {},
      el("td", {}, el("a", { href: t.watch, text: t.table })),
      el("td", { text: t.variant }),
      el("td", { text: t.state === "waiting" ? "waiting for people" : t.state + (t.state === "playing" && t.day ? ` (${["duel", "duel3", "trio"].includes(t.variant) ? "hand" : "day"} ${t.day})` : "") }),
      el("td", { class: "small seats-cell" }, ...Object.entries(t.seats).map(([n, s]) => el("span", { class: "seat-chip", text: `${n}:\u00a0${s}` }))))));
  } catch (err) { /* the next refresh tries again */ }
}

async function start() {
  const { variants: list } = await (await fetch("/api/variants")).json();
  for (const v of list) {
    variants[v.variant] = v;
    variantSelect.append(el("option", { value: v.variant, text: v.title ? `${v.variant} — ${v.title}` : v.variant }));
  }
  variantSelect.addEventListener("change", pickVariant);
  playersInput.addEventListener("change", drawSeats);
  document.getElementById("create").addEventListener("submit", create);
  pickVariant();
  listTables();
  setInterval(listTables, 5000);
}

start();
