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
stickToBottom(chat);

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
const drafts = {};            // draft key -> what was typed, kept across refusals and reloads of the panel
let lastSent = null;          // {text, label, ok, turn}: what was sent last, for which beat or step, and how it went
let lastState = null;
const answered = new Set();   // decisions answered from this page: a poll answered before the answer arrived may still show one
const statusLine = document.getElementById("status");
const CONFIRM_MS = 4000;      // a move's second tap within this sends it
const GROUP_WORDS = {
  discussion: "talk", defence: "defence", last_words: "last words", vote: "vote", verdict: "vote",
  floor: "the floor", judge: "judging", night_kill: "night shot", check: "check", heal: "save",
  visit: "visit", mafia_channel: "mafia channel", soliloquy: "soliloquy", soliloquy_reply: "reply",
};
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

// A draft belongs to a decision; in McKay's games to the whole hand, so that words typed over
// several 6-10 s beats are not wiped when a beat ends (ids may be numbers or opaque strings).
function keyOf(dec) {
  return dec.group === "beat" ? `hand:${dec.day}` : `decision:${dec.id}`;
}

function draftOf(dec) {
  const id = keyOf(dec);
  if (!drafts[id]) {
    let kept = null;
    try { kept = JSON.parse(localStorage.getItem(draftKey) || "null"); } catch (err) { kept = null; }
    drafts[id] = kept && kept.id === id ? kept.draft : { speech: "", words: "", fields: {}, floor: [], role: "", checks: [] };
  }
  return drafts[id];
}

function saveDraft() {
  if (!decision || !drafts[keyOf(decision)]) return;
  try { localStorage.setItem(draftKey, JSON.stringify({ id: keyOf(decision), draft: drafts[keyOf(decision)] })); } catch (err) { /* storage full or off */ }
}

// "Day 2 vote", "the first night's check", "Hand 1, beat 3 of 12": the step a decision belongs to.
function stepLabel(dec) {
  if (dec.group === "beat") return beatLabel || `Hand ${dec.day}`;
  const when = NIGHT.test(dec.phase || "") ? (dec.day === 0 ? "the first night" : `night ${dec.day}`) : `day ${dec.day}`;
  return `${when}, ${GROUP_WORDS[dec.group] || String(dec.group || dec.phase).replace(/_/g, " ")}`;
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
  const d = draftOf(decision);
  if (decision.talk && action.kind !== "speak" && d.words.trim()) action.speech = d.words.trim();
  const label = stepLabel(decision);
  const sent = decision;
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
    delete drafts[keyOf(sent)];
    answered.add(String(sent.id));
    if (sent.group === "beat") {  // the words went with the move; the rest of the hand starts afresh
      d.words = "";
      const words = panel.querySelector("#words");
      if (words) words.value = "";
    }
    lastSent = { text: describe(action), label, ok: true, turn: JSON.stringify(lastState && lastState.turn) };
    decision = null;
    sending = false;
    showIdle();
    return;
  }
  let reason = `HTTP ${response.status}`;
  try { reason = (await response.json()).error || reason; } catch (err) { /* keep the status */ }
  if (response.status === 409) {  // the beat or step ended before the move arrived
    const fallback = sent.default ? describe(sent.default) : "the default";
    lastSent = { text: describe(action), label, ok: false, turn: null, fallback };
    decision = null;
    sending = false;
    showIdle();
    return;
  }
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
  const order = el("p", { class: "floor-order small", id: "floor-order" });
  const marks = {};
  const redraw = () => {  // the order is the rule: each ticked name shows its place
    for (const [choice, mark] of Object.entries(marks)) {
      const at = d.floor.indexOf(choice);
      mark.textContent = at >= 0 ? String(at + 1) : "";
    }
    order.textContent = d.floor.length ? `Speaking order: ${d.floor.map((n, i) => `${i + 1}. ${n}`).join(", ")}` : "Nobody ticked: nobody gets the floor.";
  };
  for (const choice of spec.choices || []) {
    const input = el("input", { type: "checkbox", value: choice, checked: d.floor.includes(choice) });
    input.addEventListener("change", () => {
      if (input.checked) {
        if (d.floor.length >= most) { input.checked = false; refuse(`the floor goes to at most ${most}`); return; }
        d.floor.push(choice);
      } else d.floor = d.floor.filter((x) => x !== choice);
      redraw();
    });
    marks[choice] = el("span", { class: "order", "aria-hidden": "true" });
    box.append(el("label", { "data-floor": choice }, input, choice, marks[choice]));
  }
  redraw();
  return [el("p", { class: "field-label", text: `Hand the floor to (at most ${most}, in the order you tick):` }), box, order];
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
  const d = draftOf(dec);
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

// A move is sent by a second tap: the first arms the button ("Tap again: kill Bob"), so a stray
// tap on a phone sends nothing. A pass (what silence does anyway) goes at once.
let armed = null;

function confirmed(button, label, go) {
  return () => {
    if (armed && armed.button === button && performance.now() - armed.at < CONFIRM_MS) {
      armed = null;
      go();
      return;
    }
    if (armed) { armed.button.classList.remove("armed"); armed.button.textContent = armed.label; }
    armed = { button, label, at: performance.now() };
    button.classList.add("armed");
    button.textContent = `Tap again: ${label}`;
    setTimeout(() => {
      if (armed && armed.button === button && performance.now() - armed.at >= CONFIRM_MS - 50) {
        button.classList.remove("armed");
        button.textContent = label;
        armed = null;
      }
    }, CONFIRM_MS);
  };
}

function moveButton(attrs, label, action) {
  const button = el("button", { type: "button", ...attrs, text: label, "data-label": label });
  const go = () => send(action);
  button.addEventListener("click", action.kind === "pass" ? go : confirmed(button, label, go));
  return button;
}

function moveButtons(dec) {
  const d = draftOf(dec);
  const box = el("div", {});
  if (dec.talk) {
    const words = el("input", { type: "text", id: "words", maxlength: dec.max_speech, placeholder: "words with your move (optional)" });
    words.value = d.words;
    words.addEventListener("input", () => { d.words = words.value; });
    box.append(el("label", { for: "words", text: "Say something with your move:" }), words);
  }
  box.append(moveRow(dec));
  if (dec.options.some((o) => o.kind !== "pass")) box.append(el("p", { class: "small muted", text: "A move goes with a second tap (a pass at once)." }));
  return box;
}

// One button per legal move of ``dec``.
function moveRow(dec) {
  const moves = el("div", { class: "moves" });
  for (const option of dec.options) {
    const kind = option.kind;
    const fields = Object.entries(option.fields);
    if (kind === "verdict") {
      moves.append(moveButton({ "data-move": "yes" }, "yes", { kind, yes: true }));
      moves.append(moveButton({ "data-move": "no", class: "secondary" }, "no", { kind, yes: false }));
      continue;
    }
    if (!fields.length) {
      moves.append(moveButton({ "data-move": kind, class: kind === "pass" ? "secondary" : null }, PLAIN[kind] || kind.replace(/_/g, " "), { kind }));
      continue;
    }
    const [name, spec] = fields[0];
    for (const value of spec.choices || []) {
      const label = (LABELS[kind] || `${kind} {}`).replace("{}", value);
      moves.append(moveButton({ "data-move": `${kind}:${value}` }, label, { kind, [name]: value }));
    }
    if (spec.nullable) {
      moves.append(moveButton({ class: "secondary", "data-move": `${kind}:none` }, NULLS[kind] || `${kind}: nobody`, { kind, [name]: null }));
    }
  }
  return moves;
}

function showDecision(dec) {
  decision = dec;
  armed = null;
  decisionClock.set(dec.left);
  const children = [el("p", { class: "step", id: "step", text: `For ${stepLabel(dec)}` }), el("p", { class: "question", text: dec.question })];
  for (const note of dec.notes || []) children.push(el("p", { class: "note", text: note }));
  children.push(el("p", { class: "refused", text: dec.feedback ? `Not accepted: ${dec.feedback}` : "" }));
  const speak = dec.options.find((o) => o.kind === "speak");
  children.push(speak ? speakForm(dec, speak) : moveButtons(dec));
  children.push(el("p", { class: "default", text: `If time runs out: ${describe(dec.default)}.` }));
  if (lastSent) children.push(el("p", { id: "sent", class: lastSent.ok ? "sent" : "refused", text: lastSentText() }));
  panel.replaceChildren(el("h2", { text: "Your move" }), ...children);
  panel.dataset.options = JSON.stringify(dec.options);
  panel.dataset.key = keyOf(dec);
  panel.classList.remove("result");
  setTitle();
}

// Standing text beside the seats: McKay's point tables, a mafia seat's rule for the team's victim.
function showRules(rules) {
  for (const [key, title] of [["team_rule", "Your team's rule"], ["scoring", "Scoring (points per hand)"]]) {
    const id = `rules-${key.replace("_", "-")}`;
    if (!rules[key] || document.getElementById(id)) continue;
    const box = el("details", { id, class: "box rules" }, el("summary", { text: title }), el("p", { class: "small", text: rules[key] }));
    if (key === "team_rule") box.open = true;
    seatsList.closest("section").after(box);
  }
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

// The panel when nothing is asked of this seat: what it sent last and for which step, and, dead,
// what it may still watch. (A McKay hand's words box stays, so typing goes on between beats.)
function showIdle() {
  const dead = table && !table.mckay && table.alive[me] === false;
  const words = panel.querySelector("#words");
  if (words && lastState && lastState.state === "playing" && table.mckay && !dead) {
    for (const b of panel.querySelectorAll("button")) b.disabled = true;
    panel.querySelector("h2").textContent = "Between beats";
  } else {
    const children = [el("h2", { text: dead ? "You are dead" : "Nothing to answer now" })];
    if (dead) children.push(el("p", { id: "dead-note", text: "You are out of the game. You can still watch everything said at the table; the cards and every night move show when the game is over." }));
    children.push(el("p", { class: "muted", id: "idle", text: "" }));
    panel.replaceChildren(...children);
  }
  const sent = lastSentText();
  let node = panel.querySelector("#sent");
  if (!node) { node = el("p", { id: "sent" }); panel.append(node); }
  node.className = lastSent && !lastSent.ok ? "refused" : "sent";
  node.textContent = sent;
  setTitle();
  showStatus();
}

function lastSentText() {
  if (!lastSent) return "";
  if (lastSent.ok) return `Sent for ${lastSent.label}: ${lastSent.text}.`;
  return `Too late for ${lastSent.label}: it ended before your ${lastSent.text} arrived, so ${lastSent.fallback} was played.`;
}

// Whose move it is, as everyone at the table may know it (the server's `turn`).
function whoseMove(turn) {
  if (!turn) return "The table moves on…";
  if (!turn.players) return table.night ? "The night: others are choosing." : "Others are choosing in secret.";
  const others = turn.players.filter((p) => p !== me);
  const who = names(others);
  const many = others.length > 1;
  if (!others.length) return "Your move is coming…";  // asked, and the question is on its way
  switch (turn.group) {
    case "beat": return `${capital(withoutHand(beatLabel)) || "A beat"}: everyone moves.`;
    case "discussion": return `${who} ${many ? "are" : "is"} speaking.`;
    case "defence": return `${who} ${many ? "make their defences" : "makes a defence"}.`;
    case "last_words": return `${who} ${many ? "say" : "says"} last words.`;
    case "vote": case "verdict": return `Voting: waiting for ${who}.`;
    case "floor": return `${who} ${many ? "speak" : "speaks"}, handed the floor.`;
    case "judge": return `${who} ${many ? "judge" : "judges"}.`;
    default: return `Waiting for ${who}.`;
  }
}

const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);
const withoutHand = (label) => label.replace(/^Hand \d+, /, "");  // the header says the hand

function clockWords(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  return s >= 60 ? `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}` : `${s} s`;
}

// The status line: always true — the game over, waiting for the people, your move, what you sent
// and that the others choose, whose move it is, and whether you are dead.
function statusText() {
  const state = lastState;
  if (!state || !table) return "Connecting…";
  if (state.over) return state.state === "over" ? table.resultText() : `The game was stopped${state.aborted ? ": " + state.aborted : ""}.`;
  if (state.state === "waiting" && state.start && !state.start.open) {
    const awaited = state.start.waiting_for || [];
    const left = startClock.left();
    let text = `Waiting for ${names(awaited)} to open ${awaited.length > 1 ? "their pages" : "their page"}: the game and its clock start when everyone is here`;
    text += left !== null ? `, or in ${clockWords(left)} at the latest (then an absent seat plays its defaults).` : ".";
    return text;
  }
  const parts = [];
  if (!table.mckay && table.alive[me] === false) parts.push("You are dead: you can still watch the table.");
  if (decision && !sending) parts.push(`Your move: ${capital(withoutHand(stepLabel(decision)))}.`);
  else if (lastSent && lastSent.ok && lastSent.turn === JSON.stringify(state.turn)) parts.push(`Sent: ${lastSent.text}. ${whoseMove(state.turn)}`);
  else parts.push(whoseMove(state.turn));
  return parts.join(" ");
}

function showStatus() {
  const text = statusText();
  if (statusLine.textContent !== text) statusLine.textContent = text;
  const idle = panel.querySelector("#idle");
  if (idle) idle.textContent = text;
}

const startClock = new Countdown();

function tick() {
  const left = decision ? decisionClock.left() : null;
  const beatLeft = beatClock.left();
  const short = withoutHand(beatLabel);
  let text = "";
  if (beatLeft !== null && beatLeft > 0) text = `${short} · ${beatLeft.toFixed(1)} s`;
  else if (left !== null) text = left > 0 ? `${clockWords(left)} to answer` : "time is up";
  clock.textContent = over ? "" : text;
  clock.classList.toggle("low", (beatLeft ?? left ?? 99) < 5);
  const own = panel.querySelector(".countdown");
  if (own) own.textContent = text;
  showStatus();
}

function apply(state) {
  lastState = state;
  if (!table) {
    me = state.seat;
    table = new Table(state.seats, me, state.variant);
    document.getElementById("title").textContent = `${me} · ${state.variant}`;
  }
  for (const event of state.events) table.learn(event);
  showRules(state.rules || {});
  appendLines(chat, state.lines);
  table.render(seatsList);
  whenNode.textContent = table.when;
  beatLabel = state.beat ? state.beat.label : "";
  beatClock.set(state.beat ? state.beat.left : null);
  startClock.set(state.start && !state.start.open ? state.start.left : null);
  if (state.over) {
    over = true;
    showResult(state);
    showStatus();
    return;
  }
  const dec = state.decision && !answered.has(String(state.decision.id)) ? state.decision : null;
  if (!dec) {
    if (!sending && (decision || !panel.querySelector("#idle, #sent, #dead-note"))) {
      decision = null;
      showIdle();
    } else if (!sending && table.alive[me] === false && !panel.querySelector("#dead-note") && !table.mckay) {
      showIdle();
    }
  } else if (!sending) {
    if (decision && decision.id === dec.id && decision.feedback === dec.feedback) {
      decisionClock.set(dec.left);
    } else if (dec.group === "beat" && !dec.feedback && panel.querySelector("#words") && panel.querySelector(".moves")
      && panel.dataset.key === keyOf(dec)) {
      // the next beat of the same hand: the same panel (the words box keeps its focus and text)
      showDecisionKeepingWords(dec);
    } else {
      showDecision(dec);
    }
  }
  if (decision) {
    if (!panel.querySelector(".countdown")) panel.querySelector("h2")?.after(el("p", { class: "clock countdown" }));
  }
  setTitle();
  showStatus();
}

// A new beat asks the same question: keep the panel (and the focus of the words box), take the new id.
function showDecisionKeepingWords(dec) {
  decision = dec;
  armed = null;
  decisionClock.set(dec.left);
  panel.querySelector(".moves").replaceWith(moveRow(dec));  // the moves of this beat (a declared cop's are gone)
  panel.dataset.options = JSON.stringify(dec.options);
  for (const b of panel.querySelectorAll("button")) b.disabled = false;
  panel.querySelector("h2").textContent = "Your move";
  const step = panel.querySelector("#step");
  if (step) step.textContent = `For ${stepLabel(dec)}`;
  const question = panel.querySelector(".question");
  if (question) question.textContent = dec.question;
  const def = panel.querySelector(".default");
  if (def) def.textContent = `If time runs out: ${describe(dec.default)}.`;
}

setInterval(tick, 200);
if (!token) connection.textContent = "This link has no seat token.";
else poll(api, apply, connection, seatHeaders);
