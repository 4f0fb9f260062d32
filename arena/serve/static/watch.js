// arena serve: the watch page. Live it shows the public view only; once the game is over the
// server sends every view, and the page reads the game again from the start with everything.
"use strict";

const tableId = location.pathname.split("/")[2];
const api = `/api/tables/${tableId}/watch`;
const chat = document.getElementById("chat");
const seatsList = document.getElementById("seats");
const clock = document.getElementById("clock");
const whenNode = document.getElementById("when");
const connection = document.getElementById("connection");
stickToBottom(chat);
const note = document.getElementById("note");
const statusLine = document.getElementById("status");
const beatClock = new Countdown();
let beatLabel = "";
let table = null;
let allViews = false;
let over = false;

function apply(state) {
  if (state.all_views && !allViews) {
    // every view is open now (the game is over): start again from the first event, with everything
    allViews = true;
    table = null;
    chat.replaceChildren();
    if (state.events.length && state.events[0].seq !== 1) return "restart";
  }
  if (!table) {
    table = new Table(state.seats, null, state.variant);
    document.getElementById("title").textContent = `Watching · ${state.variant}`;
  }
  for (const event of state.events) table.learn(event);
  appendLines(chat, state.lines);
  table.render(seatsList);
  whenNode.textContent = table.when;
  beatLabel = state.beat ? state.beat.label : "";
  beatClock.set(state.beat ? state.beat.left : null);
  document.getElementById("view").textContent = allViews ? "Every view (the game is over, or this table has no person)" : "The public view";
  statusLine.textContent = watchStatus(state);
  if (state.over) {
    over = true;
    const text = state.state === "over" ? table.resultText() : `The game was stopped${state.aborted ? ": " + state.aborted : ""}.`;
    note.replaceChildren(el("strong", { id: "result", text }), el("br"),
      el("a", { href: `/tables/${tableId}/report`, target: "_blank", rel: "noopener", text: "the game's report" }));
  }
  return null;
}

// The watcher's status line: waiting for the people, whose move it is as everyone knows it, the end.
function watchStatus(state) {
  if (state.over) return state.state === "over" ? table.resultText() : "The game was stopped.";
  if (state.state === "waiting" && state.start && !state.start.open) {
    return `Waiting for ${names(state.start.waiting_for || [])} to open their seat's page: the game starts when everyone is here.`;
  }
  const turn = state.turn;
  if (!turn) return "The table moves on…";
  if (!turn.players) return table.night ? "The night: the players are choosing." : "Players are choosing in secret.";
  if (turn.group === "beat") return "A beat: everyone moves.";
  if (["discussion", "defence", "last_words", "floor"].includes(turn.group)) return `${names(turn.players)} ${turn.players.length > 1 ? "are" : "is"} speaking.`;
  if (turn.group === "vote" || turn.group === "verdict") return `Voting: ${names(turn.players)}.`;
  return `Waiting for ${names(turn.players)}.`;
}

setInterval(() => {
  const left = beatClock.left();
  clock.textContent = !over && left !== null && left > 0 ? `${beatLabel} · ${left.toFixed(1)} s` : "";
}, 200);
poll(api, apply, connection);
