// A whole Jackal bot in Node.js, nothing to install: `jackal bot --exec "node stdin_bot.js"`.
// Each move, one your_turn line (JSON) comes in on stdin; the answer is one card on stdout.
// It keeps pairs and gives up its lone cards, the most expensive (highest) first.
const RANKS = "A23456789TJQK";

require("readline").createInterface({ input: process.stdin }).on("line", (line) => {
  const turn = JSON.parse(line);
  if (turn.type !== "your_turn") return; // ignore anything this bot does not know
  const count = {};
  for (const card of turn.hand) count[card[0]] = (count[card[0]] || 0) + 1;
  // Worst to keep first: fewest of its rank in hand, then the highest rank.
  const worst = (a, b) =>
    count[a[0]] - count[b[0]] || RANKS.indexOf(b[0]) - RANKS.indexOf(a[0]);
  const card = [...turn.hand].sort(worst)[0];
  process.stdout.write(card + "\n");
});
