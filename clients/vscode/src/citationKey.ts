// The citation key at a column of a line, as LaTeX and pandoc delimit it (no vscode import:
// the logic of clients/neovim's key_at, checked against the same cases).

/** Pandoc's internal punctuation of a key: part of it only when a key character follows. */
const INNER = ':.#$%&-+?<>~/';
/** Characters of a word under the cursor outside a citation (the fallback). */
const WORD = /[^\s{}(),;~#%"'=\\@[\]]/;

function isKeyChar(c: string | undefined): boolean {
  return c !== undefined && c !== '' && (/[A-Za-z0-9_]/.test(c) || c.charCodeAt(0) >= 128);
}

/** The last index of the pandoc key starting at `s` (after the @), or undefined. */
function pandocKeyEnd(line: string, s: number): number | undefined {
  if (line[s] === '{') {
    const close = line.indexOf('}', s + 1);
    return close < 0 ? undefined : close;
  }
  if (!isKeyChar(line[s])) {
    return undefined;
  }
  let e = s;
  for (let i = s + 1; i < line.length; i++) {
    const c = line[i];
    const after = line[i + 1];
    if (isKeyChar(c) || (INNER.includes(c) && (isKeyChar(after) || (after === '/' && (c === ':' || c === '/'))))) {
      e = i;
    } else {
      break;
    }
  }
  return e;
}

/** The key at `col` inside the braces of `\cite{a, b}` (and the other citation commands: the
 * part between commas, spaces trimmed) or of `@type{key,`; null when in such braces but on no
 * key, undefined when in none. */
function bracedKey(line: string, col: number): string | null | undefined {
  let open = -1;
  for (let i = col - 1; i >= 0; i--) {
    if (line[i] === '}') {
      return undefined;
    }
    if (line[i] === '{') {
      open = i;
      break;
    }
  }
  if (open < 0) {
    return undefined;
  }
  let before = line.slice(0, open);
  const entry = /@[A-Za-z]+\s*$/.test(before);
  if (!entry) {
    for (let n = 0; n < 8; n++) {
      // optional arguments, and the key groups before this one (\cites{a}{b})
      const stripped = before.replace(/\s*\[[^[\]]*\]\s*$/, '').replace(/\s*\{[^{}]*\}\s*$/, '');
      if (stripped === before) {
        break;
      }
      before = stripped;
    }
    const name = /\\([A-Za-z]+)\*?\s*$/.exec(before)?.[1];
    if (name === undefined || !name.toLowerCase().includes('cite')) {
      return undefined;
    }
  }
  const rest = line.slice(open + 1);
  const end = entry ? rest.search(/[,}]/) : rest.indexOf('}');
  const close = end < 0 ? line.length : open + 1 + end;
  if (col >= close) {
    return undefined;
  }
  let start = open + 1;
  while (start <= close) {
    let finish = line.indexOf(',', start);
    if (finish < 0 || finish > close) {
      finish = close;
    }
    if (col === finish) {
      return null; // on a comma
    }
    if (col < finish) {
      const key = line.slice(start, finish).trim();
      return key === '' ? null : key;
    }
    start = finish + 1;
  }
  return null;
}

/** The pandoc citation `@key` or `@{key}` at `col`, or undefined. */
function pandocKey(line: string, col: number): string | undefined {
  for (let at = line.indexOf('@'); at >= 0 && at <= col; at = line.indexOf('@', at + 1)) {
    if (isKeyChar(line[at - 1])) {
      continue; // an e-mail address
    }
    const e = pandocKeyEnd(line, at + 1);
    if (e !== undefined && col <= e) {
      return line[at + 1] === '{' ? line.slice(at + 2, e) : line.slice(at + 1, e + 1);
    }
  }
  return undefined;
}

/** The citation key at `col` (0-based) of `line`: in `\cite{a, b}` the key between the commas;
 * `@key` as pandoc delimits it (trailing punctuation is no part of it); else the word under
 * the cursor without trailing punctuation. */
export function keyAt(line: string, col: number): string | undefined {
  const braced = bracedKey(line, col);
  if (braced !== undefined) {
    return braced ?? undefined;
  }
  const cited = pandocKey(line, col);
  if (cited !== undefined) {
    return cited;
  }
  if (col >= line.length || !WORD.test(line[col])) {
    return undefined;
  }
  let s = col;
  let e = col;
  while (s > 0 && WORD.test(line[s - 1])) {
    s--;
  }
  while (e < line.length - 1 && WORD.test(line[e + 1])) {
    e++;
  }
  while (e >= s && INNER.includes(line[e])) {
    e--;
  }
  return e < s || col > e ? undefined : line.slice(s, e + 1);
}
