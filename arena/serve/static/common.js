// arena serve: what the seat and the watch page share. Everything from the server is shown as text
// (textContent), never parsed as HTML: a speech is what was typed, whatever it contains.
"use strict";

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "text") node.textContent = value;
    else if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// One line of the conversation, styled by the wording's style name.
function lineClass(text, style) {
  if (style === "private" || style.includes("magenta")) return "private";
  if (style.includes("red")) return "death";
  if (style.includes("green")) return "result";
  if (text.startsWith("──")) return "heading";
  if (style.includes("bold")) return "bold";
  return "";
}

function claimText(claim) {
  if (!claim) return "";
  const parts = [];
  if (claim.role) parts.push(`claims ${claim.role}`);
  for (const [name, result] of Object.entries(claim.checks || {})) parts.push(`says ${name} is ${result}`);
  return parts.join("; ");
}

const MCKAY = ["duel", "duel3", "trio"];
const NIGHT = /night|dawn|channel/;
const ORDINALS = ["", "first", "second", "third", "fourth", "fifth", "sixth"];

// "Ann", "Ann and Bob", "Ann, Bob and Cid"
function names(list) {
  if (list.length <= 1) return list.join("");
  return `${list.slice(0, -1).join(", ")} and ${list[list.length - 1]}`;
}

// What the seats panel shows, learned from the events a viewer received (nothing else).
class Table {
  constructor(seats, me, variant) {
    this.seats = seats;
    this.me = me;
    this.variant = variant;
    this.mckay = MCKAY.includes(variant);
    this.alive = Object.fromEntries(seats.map((s) => [s, true]));
    this.cards = {};
    this.claims = {};
    this.knows = {};        // seat -> what this viewer learned about it privately (a check, a team-mate)
    this.looked = [];       // McKay: the face-down cards this seat looked at
    this.scores = null;
    this.myCard = null;
    this.when = "";
    this.night = false;
    this.hands = null;      // McKay: how many hands the match has
    this.result = null;
  }

  learn(event) {
    const data = event.data || {};
    const isPublic = !event.to;
    const mine = !!(event.to && event.to.includes(this.me));
    if (event.type === "role" && mine) this.myCard = data.role;
    if (event.type === "team" && mine) {
      for (const m of data.members || []) if (m !== this.me) this.knows[m] = `${data.team || "mafia"} · your team-mate`;
    }
    if (event.type === "team" && !this.me && !isPublic) {  // a watcher after the game: every team
      for (const m of data.members || []) this.knows[m] = "mafia";
    }
    if (event.type === "check_result" && (mine || !this.me) && data.target) {
      this.knows[data.target] = `checked: ${data.result}`;
    }
    if (event.type === "cop_look" && mine) {
      const where = ORDINALS[data.position] ? `the ${ORDINALS[data.position]} face-down card` : `face-down card ${data.position}`;
      this.looked.push(`${where}: ${data.card}`);
    }
    if (event.type === "death" && isPublic) {
      this.alive[data.player] = false;
      if (data.role) this.cards[data.player] = data.role;
    }
    if (event.type === "hand" && isPublic) {
      for (const s of this.seats) this.alive[s] = true;
      this.cards = {};
      this.looked = [];
      if (data.of) this.hands = data.of;
    }
    if (event.type === "hand_over" && isPublic) {
      // a death ends a hand, not a seat: every seat plays the next hand (and the match's winner is
      // never shown struck through)
      for (const s of this.seats) this.alive[s] = true;
      this.cards = Object.assign({}, data.roles || {});
      this.scores = data.scores || this.scores;
    }
    if (event.type === "speech" && isPublic && event.actor && data.claim) this.claims[event.actor] = claimText(data.claim);
    if (event.type === "game_over") {
      this.cards = Object.assign({}, data.roles || {});
      this.result = data;
      if (this.mckay) for (const s of this.seats) this.alive[s] = true;
    }
    if (this.mckay) this.when = `Hand ${event.day}${this.hands ? " of " + this.hands : ""}`;
    else if (event.phase) {
      this.night = NIGHT.test(event.phase);
      this.when = this.night ? (event.day === 0 ? "The first night" : `Night ${event.day}`) : `Day ${event.day}`;
    }
  }

  render(list) {
    list.replaceChildren();
    for (const seat of this.seats) {
      const dead = !this.alive[seat];
      const item = el("li", { class: dead ? "dead" : "", "data-seat": seat },
        el("span", { class: "name", text: seat }),
        seat === this.me ? el("span", { class: "me", text: `you${this.myCard ? " · " + this.myCard : ""}` }) : null,
        el("span", { class: "state", text: dead ? "dead" : (this.mckay ? "in the hand" : "alive") }),
        this.cards[seat] ? el("span", { class: "card", text: this.cards[seat] }) : null,
        this.scores && seat in this.scores ? el("span", { class: "score", text: `${this.scores[seat] > 0 ? "+" : ""}${this.scores[seat]} pts` }) : null,
        this.knows[seat] ? el("span", { class: "knows", "data-knows": seat, text: this.knows[seat] }) : null,
        seat === this.me && this.looked.length ? el("span", { class: "knows", text: `you looked at ${this.looked.join("; ")}` }) : null,
        this.claims[seat] ? el("span", { class: "claim", text: this.claims[seat] }) : null);
      list.append(item);
    }
  }

  resultText() {
    const r = this.result;
    if (!r) return "";
    const winner = r.winner === "draw" || !r.winner ? "a draw" : `${r.winner} wins`;
    return `Game over: ${winner}${r.reason && r.reason !== "win" ? " (" + String(r.reason).replace(/_/g, " ") + ")" : ""}.`;
  }
}

// A countdown on the wall clock: seconds left when the answer came, counted down here.
class Countdown {
  constructor() { this.ends = null; }
  set(left) { this.ends = left === null || left === undefined ? null : performance.now() + left * 1000; }
  left() { return this.ends === null ? null : Math.max(0, (this.ends - performance.now()) / 1000); }
}

function appendLines(chat, lines) {
  for (const [seq, text, style] of lines) {
    chat.append(el("p", { class: lineClass(text, style || ""), "data-seq": seq, text }));
  }
  if (lines.length) toBottom(chat);
}

function toBottom(chat) {
  chat.scrollTop = chat.scrollHeight;
  chat.stuck = true;
  chat.auto = chat.scrollTop;  // the position set here: its scroll event is not the reader's
}

// The chat keeps its latest lines in view when the panel below it grows or the window turns,
// unless the reader has scrolled up to read back.
function stickToBottom(chat) {
  chat.stuck = true;
  chat.addEventListener("scroll", () => {
    if (chat.auto !== undefined && Math.abs(chat.scrollTop - chat.auto) < 2) return;
    chat.stuck = chat.scrollHeight - chat.scrollTop - chat.clientHeight < 40;
  });
  if (typeof ResizeObserver === "function") {
    new ResizeObserver(() => { if (chat.stuck) toBottom(chat); }).observe(chat);
  }
}

// Long-poll ``url`` for news; ``apply`` gets every answer; retries (a dropped connection) by itself.
async function poll(url, apply, connection, headers) {
  let after = 0;
  let version = null;
  let failures = 0;
  for (;;) {
    const query = `?after=${after}&wait=25` + (version === null ? "" : `&version=${version}`);
    let state;
    try {
      const response = await fetch(url + query, { cache: "no-store", headers: headers || {} });
      if (response.status === 404) {
        connection.textContent = "This link is not valid (no such table or seat).";
        return;
      }
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      state = await response.json();
    } catch (err) {
      failures += 1;
      connection.textContent = "Connection lost: reconnecting…";
      await sleep(Math.min(5000, 300 * failures));
      continue;
    }
    failures = 0;
    connection.textContent = "";
    if (state.events.length) after = state.events[state.events.length - 1].seq;
    version = state.version;
    const again = apply(state);
    if (again === "restart") { after = 0; version = null; continue; }
    if (state.over) return;
  }
}
