// The cards as SVG, shared by the replay page (uno_env/replay.py) and the table of `uno serve`
// (uno_env/cli/serve.py): each page inlines this file at its placeholder (uno_env.replay.page_with_cards).
const FILL = {R:"#d62839", Y:"#f2c416", G:"#2e9648", B:"#1a66c4", W:"#1e1e1e"};
const COLOUR_NAME = {R:"red", Y:"yellow", G:"green", B:"blue"};
const SYMBOL = {S: "\u2298", R: "\u21c4"};  // Skip, Reverse: the cards' own signs (the text stays in aria-label)

function shape(c, x, y, s) {  // a shape per colour, so that colour is never the only cue
  if (c === "R") return `<circle cx="${x}" cy="${y}" r="${s}" fill="#fff"/>`;
  if (c === "Y") return `<polygon points="${x},${y - s} ${x + s},${y + s} ${x - s},${y + s}" fill="#fff"/>`;
  if (c === "G") return `<rect x="${x - s}" y="${y - s}" width="${2 * s}" height="${2 * s}" fill="#fff"/>`;
  if (c === "B") return `<polygon points="${x},${y - s} ${x + s},${y} ${x},${y + s} ${x - s},${y}" fill="#fff"/>`;
  return "";
}
function card(text, big) {
  const w = big ? 64 : 42, h = big ? 92 : 60;
  if (text === null) return `<svg width="${w}" height="${h}" role="img" aria-label="face down card"><rect x="1" y="1" width="${w - 2}" height="${h - 2}" rx="6" fill="#334155" stroke="#fff" stroke-width="2"/><text x="${w / 2}" y="${h / 2 + 5}" fill="#fde047" font-size="${big ? 16 : 12}" font-weight="700" text-anchor="middle">UNO</text></svg>`;
  const wild = text[0] === "W" || text === "FT", c = wild ? "W" : text[0], rank = text.slice(1);
  const label = wild ? text : (SYMBOL[rank] || rank);
  const ink = c === "Y" ? "#111" : "#fff";
  const size = label.length > 2 ? (big ? 19 : 13) : (big ? 26 : 17);  // "W+4", "+2" and "FT" fit the card
  return `<svg width="${w}" height="${h}" role="img" aria-label="${text}"><rect x="1" y="1" width="${w - 2}" height="${h - 2}" rx="6" fill="${FILL[c]}" stroke="#fff" stroke-width="2"/>`
    + shape(c, w - 10, 11, big ? 6 : 4)
    + `<text x="6" y="${big ? 18 : 14}" fill="${ink}" font-size="${big ? 14 : 11}" font-weight="700">${wild ? "" : c}</text>`
    + `<text x="${w / 2}" y="${h / 2 + (big ? 9 : 6)}" fill="${ink}" font-size="${size}" font-weight="800" text-anchor="middle">${label}</text></svg>`;
}
function esc(s) { return String(s).replace(/[&<>"]/g, ch => ({"&":"&amp;","<":"&lt;",">":"&gt;",'"':"&quot;"}[ch])); }
