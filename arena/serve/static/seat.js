// arena serve: one seat's page. The token is the URL's #fragment, so it never reaches a log;
// the panel is built from the legal-action request the engine gives every player.
"use strict";

const tableId = location.pathname.split("/")[2];
const token = location.hash.slice(1);
const api = `/api/tables/${tableId}/seat`;   // the token goes in a header, never in an address
const seatHeaders = { "X-Seat-Token": token };
const chat = document.getElementById("chat");
const panel = document.getElementById("panel");
const seatsList = document.getElementById("seats");
const clock = document.getElementById("clock");
const turn = document.getElementById("turn");
const whenNode = document.getElementById("when");
const connection = document.getElementById("connection");

const LABELS = {
  kill: "kill {}", vote: "vote {}", check: "check {}", heal: "save {}", visit: "visit {}",
  judge: "{} killed first", place_card: "card on {}",
  declare_cop: "declare cop, look at card {}", peek: "look at card {}",
};
const NULLS = { kill: "hold fire", vote: "abstain", place_card: "take your card back", declare_cop: "declare cop (no look)" };
const PLAIN = { pass: "pass", handshake: "offer a handshake", continue: "continue: the kill stands", retract: "retract the kill", speak: "speak" };

let me = null;
let table = null;
let decision = null;          // the decision shown in the panel
let sending = false;
const drafts = {};            // decision id -> what was typed, kept across refusals and reloads of the panel
const decisionClock = new Countdown();
const beatClock = new Countdown();
let beatLabel = "";
let over = false;

function describe(action) {
  if (!action) return "";
  const kind = action.kind;
  const value = action.target ?? action.position ?? action.slot ?? action.first;
  if (kind === "verdict") return action.yes ? "yes" : "no";
  if (kind === "speak") return action.speech ? `say '${action.speech}'` : "silence";
  if (value === undefined || value === null) return NULLS[kind] || PLAIN[kind] || kind.replace(/_/g, " ");
  return (LABELS[kind] || `${kind} {}`).replace("{}", value);
}

// What was typed survives a closed tab too: the open decision's draft is kept in this browser.
const draftKey = `arena-draft:${tableId}:${token.slice(0, 12)}`;

function draftOf(id) {
  if (!drafts[id]) {
    let kept = null;
    try { kept = JSON.parse(localStorage.getItem(draftKey) || "null"); } catch (err) { kept = null; }
    drafts[id] = kept && kept.id === id ? kept.draft : { speech: "", words: "", fields: {}, floor: [], role: "", checks: [] };
  }
  return drafts[id];
}

function saveDraft() {
  if (!decision || !drafts[decision.id]) return;
  try { localStorage.setItem(draftKey, JSON.stringify({ id: decision.id, draft: drafts[decision.id] })); } catch (err) { /* storage full or off */ }
}

for (const type of ["input", "change", "click"]) panel.addEventListener(type, () => setTimeout(saveDraft, 0), true);

function setTitle() {
  const mine = decision && !sending;
  document.title = `${mine ? "▶ your turn · " : ""}${me || "seat"} · Mafia arena`;
  turn.hidden = !mine;
  panel.classList.toggle("turn", !!mine);
}

function refuse(text) {
  const node = panel.querySelector(".refused");
  if (node) node.textContent = text ? `Not accepted: ${text}` : "";
}

async function send(action) {
  if (!decision || sending) return;
  const d = draftOf(decision.id);
  if (decision.talk && action.kind !== "speak" && d.words.trim()) action.speech = d.words.trim();
  sending = true;
  for (const b of panel.querySelectorAll("button")) b.disabled = true;
  let response;
  try {
    response = await fetch(`${api}/answer`, {
      method: "POST", headers: { "Content-Type": "application/json", ...seatHeaders },
      body: JSON.stringify({ decision: decision.id, action }),
    });
  } catch (err) {
    sending = false;
    for (const b of panel.querySelectorAll("button")) b.disabled = false;
    refuse("the connection dropped; try again");
    return;
  }
  if (response.ok) {
    try { localStorage.removeItem(draftKey); } catch (err) { /* nothing kept */ }
    panel.replaceChildren(el("p", { class: "muted", text: `Sent (${describe(action)}). Waiting for the table…` }));
    decision = null;
    sending = false;
    setTitle();
    return;
  }
  let reason = `HTTP ${response.status}`;
  try { reason = (await response.json()).error || reason; } catch (err) { /* keep the status */ }
  sending = false;
  for (const b of panel.querySelectorAll("button")) b.disabled = false;
  refuse(reason);
  setTitle();
}

function picker(name, spec, d, labelText) {
  const select = el("select", { id: `field-${name}`, name, onchange: (e) => { d.fields[name] = e.target.value; } });
  if (spec.nullable) select.append(el("option", { value: "", text: "nobody" }));
  for (const choice of spec.choices || []) select.append(el("option", { value: String(choice), text: String(choice) }));
  if (d.fields[name] !== undefined) select.value = d.fields[name];
  else d.fields[name] = select.value;
  return [el("label", { for: `field-${name}`, text: labelText }), select];
}

function floorPicker(spec, d) {
  const most = spec.max_items ?? (spec.choices || []).length;
  const box = el("div", { class: "floor" });
  for (const choice of spec.choices || []) {
    const input = el("input", { type: "checkbox", value: choice, checked: d.floor.includes(choice) });
    input.addEventListener("change", () => {
      if (input.checked) {
        if (d.floor.length >= most) { input.checked = false; refuse(`the floor goes to at most ${most}`); return; }
        d.floor.push(choice);
      } else d.floor = d.floor.filter((x) => x !== choice);
    });
    box.append(el("label", {}, input, choice));
  }
  return [el("label", { text: `Hand the floor to (at most ${most}, in the order you tick):` }), box];
}

function claimStep(dec, d) {
  const roles = el("select", { id: "claim-role", onchange: (e) => { d.role = e.target.value; } },
    el("option", { value: "", text: "no role" }), ...dec.claim_roles.map((r) => el("option", { value: r, text: r })));
  roles.value = d.role;
  const checks = el("div", { id: "claim-checks" });
  const drawChecks = () => {
    checks.replaceChildren();
    d.checks.forEach((check, i) => {
      const who = el("select", { onchange: (e) => { check.name = e.target.value; } },
        ...dec.seats.filter((s) => s !== me).map((s) => el("option", { value: s, text: s })));
      who.value = check.name;
      const result = el("select", { onchange: (e) => { check.result = e.target.value; } },
        el("option", { value: "mafia", text: "is mafia" }), el("option", { value: "not mafia", text: "is not mafia" }));
      result.value = check.result;
      checks.append(el("div", { class: "row" }, who, result,
        el("button", { type: "button", class: "secondary", text: "✕", "aria-label": "remove", onclick: () => { d.checks.splice(i, 1); drawChecks(); } })));
    });
  };
  drawChecks();
  const add = el("button", { type: "button", class: "secondary", text: "add a check result", onclick: () => {
    d.checks.push({ name: dec.seats.find((s) => s !== me), result: "mafia" }); drawChecks();
  } });
  return el("details", { open: d.role || d.checks.length ? true : null },
    el("summary", { text: "Claim a card or a check (optional; it may be a bluff)" }),
    el("label", { for: "claim-role", text: "The card you claim:" }), roles, checks, add);
}

function speakForm(dec, option) {
  const d = draftOf(dec.id);
  const form = el("form", { id: "speak-form", onsubmit: (e) => {
    e.preventDefault();
    const action = { kind: "speak", speech: d.speech };
    for (const [name, spec] of Object.entries(option.fields)) {
      if (name === "floor") { action.floor = d.floor.slice(); continue; }
      const value = d.fields[name];
      action[name] = value === "" || value === undefined ? null : value;
      if (action[name] !== null && typeof (spec.choices || [])[0] === "number") action[name] = Number(value);
    }
    if (dec.claims && (d.role || d.checks.length)) {
      action.claim = { role: d.role || null, checks: Object.fromEntries(d.checks.map((c) => [c.name, c.result])) };
    }
    send(action);
  } });
  const audience = dec.talk === "all" ? "everyone" : `the ${String(dec.talk || "").replace("team:", "")} only`;
  const words = el("textarea", { id: "speech", maxlength: dec.max_speech, placeholder: `Your words to ${audience} (empty: silence)` });
  words.value = d.speech;
  words.addEventListener("input", () => { d.speech = words.value; });
  form.append(el("label", { for: "speech", text: `Your words (${audience}, at most ${dec.max_speech} characters):` }), words);
  for (const [name, spec] of Object.entries(option.fields)) {
    if (name === "floor") form.append(...floorPicker(spec, d));
    else form.append(...picker(name, spec, d, { accuse: "Accuse:", nominate: "Nominate:" }[name] || `${name}:`));
  }
  if (dec.claims) form.append(claimStep(dec, d));
  form.append(el("div", { class: "moves" }, el("button", { type: "submit", id: "send", text: "Speak" })));
  return form;
}

function moveButtons(dec) {
  const d = draftOf(dec.id);
  const box = el("div", {});
  if (dec.talk) {
    const words = el("input", { type: "text", id: "words", maxlength: dec.max_speech, placeholder: "words with your move (optional)" });
    words.value = d.words;
    words.addEventListener("input", () => { d.words = words.value; });
    box.append(el("label", { for: "words", text: "Say something with your move:" }), words);
  }
  const moves = el("div", { class: "moves" });
  for (const option of dec.options) {
    const kind = option.kind;
    const fields = Object.entries(option.fields);
    if (kind === "verdict") {
      moves.append(el("button", { type: "button", "data-move": "yes", text: "yes", onclick: () => send({ kind, yes: true }) }));
      moves.append(el("button", { type: "button", "data-move": "no", class: "secondary", text: "no", onclick: () => send({ kind, yes: false }) }));
      continue;
    }
    if (!fields.length) {
      moves.append(el("button", { type: "button", "data-move": kind, class: kind === "pass" ? "secondary" : null, text: PLAIN[kind] || kind.replace(/_/g, " "), onclick: () => send({ kind }) }));
      continue;
    }
    const [name, spec] = fields[0];
    for (const value of spec.choices || []) {
      const label = (LABELS[kind] || `${kind} {}`).replace("{}", value);
      moves.append(el("button", { type: "button", "data-move": `${kind}:${value}`, text: label, onclick: () => send({ kind, [name]: value }) }));
    }
    if (spec.nullable) {
      moves.append(el("button", { type: "button", class: "secondary", "data-move": `${kind}:none`, text: NULLS[kind] || `${kind}: nobody`, onclick: () => send({ kind, [name]: null }) }));
    }
  }
  box.append(moves);
  return box;
}

function showDecision(dec) {
  decision = dec;
  decisionClock.set(dec.left);
  const children = [el("p", { class: "question", text: dec.question })];
  children.push(el("p", { class: "refused", text: dec.feedback ? `Not accepted: ${dec.feedback}` : "" }));
  const speak = dec.options.find((o) => o.kind === "speak");
  children.push(speak ? speakForm(dec, speak) : moveButtons(dec));
  children.push(el("p", { class: "default", text: `If time runs out: ${describe(dec.default)}.` }));
  panel.replaceChildren(el("h2", { text: "Your move" }), ...children);
  setTitle();
}

function showResult(state) {
  // the seat's own page is asked with the token in a form's body: no address (history, a proxy's log) keeps it
  const own = el("form", { method: "post", action: `/tables/${tableId}/report`, target: "_blank", class: "inline", id: "own-report" },
    el("input", { type: "hidden", name: "token", value: token }),
    el("button", { type: "submit", class: "link", text: "your own page (what you saw)" }));
  const links = el("p", { class: "links" },
    el("a", { href: `/tables/${tableId}/report`, target: "_blank", rel: "noopener", text: "the whole game's report" }), " · ", own);
  const cards = Object.entries(table.cards).map(([n, r]) => `${n}: ${r}`).join(", ");
  const text = state.state === "over" ? table.resultText() : `The game was stopped${state.aborted ? ": " + state.aborted : ""}.`;
  panel.classList.add("result");
  panel.replaceChildren(el("h2", { text: "Result" }), el("p", { id: "result", text }),
    cards ? el("p", { class: "small", text: `Cards: ${cards}` }) : null, links);
  decision = null;
  setTitle();
}

function tick() {
  const left = decision ? decisionClock.left() : null;
  const beatLeft = beatClock.left();
  let text = "";
  if (beatLeft !== null && beatLeft > 0) text = `${beatLabel} · ${beatLeft.toFixed(1)} s`;
  else if (left !== null) text = left > 0 ? `${Math.ceil(left)} s left` : "time is up";
  if (left !== null && beatLeft === null) text = left > 0 ? `${Math.ceil(left)} s to answer` : "time is up";
  clock.textContent = over ? "" : text;
  clock.classList.toggle("low", (beatLeft ?? left ?? 99) < 5);
  const own = panel.querySelector(".countdown");
  if (own) own.textContent = text;
}

function apply(state) {
  if (!table) {
    me = state.seat;
    table = new Table(state.seats, me, state.variant);
    document.getElementById("title").textContent = `${me} · ${state.variant}`;
  }
  for (const event of state.events) table.learn(event);
  appendLines(chat, state.lines);
  table.render(seatsList);
  whenNode.textContent = table.when;
  beatLabel = state.beat ? state.beat.label : "";
  beatClock.set(state.beat ? state.beat.left : null);
  if (state.over) {
    over = true;
    showResult(state);
    return;
  }
  const dec = state.decision;
  if (!dec) {
    if (decision && !sending) {
      decision = null;
      panel.replaceChildren(el("p", { class: "muted", text: "Waiting for the table…" }));
    }
  } else if (!decision || decision.id !== dec.id || decision.feedback !== dec.feedback) {
    if (!sending) showDecision(dec);
  } else {
    decisionClock.set(dec.left);
  }
  if (decision) {
    if (!panel.querySelector(".countdown")) panel.querySelector("h2")?.after(el("p", { class: "clock countdown" }));
  }
  setTitle();
}

setInterval(tick, 200);
if (!token) connection.textContent = "This link has no seat token.";
else poll(api, apply, connection, seatHeaders);
