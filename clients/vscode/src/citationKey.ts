// The citation key at a column of a line, as LaTeX and pandoc delimit it (no vscode import:
// the logic of clients/neovim's key_at, checked against the same cases).

/** Pandoc's internal punctuation of a key: part of it only when a key character follows. */
const INNER = ':.#$%&-+?<>~/';
/** ASCII characters of a word under the cursor outside a citation (the fallback); other
 * characters of it are letters and digits. */
const WORD = /[^\s{}(),;~#%"'=\\@[\]]/;

/** A character of a pandoc key: a letter or digit (Unicode's, as pandoc's isAlphaNum) or _. */
const KEY_CHAR = /^[\p{L}\p{N}_]$/u;

/** The character (code point) starting at index `i` of `line`, or '' past its end. */
function charAt(line: string, i: number): string {
  const code = line.codePointAt(i);
  return code === undefined ? '' : String.fromCodePoint(code);
}

/** The character (code point) ending just before index `i` of `line`, or '' at its start. */
function charBefore(line: string, i: number): string {
  const pair = i >= 2 ? line.slice(i - 2, i) : '';
  return pair.length === 2 && charAt(pair, 0).length === 2 ? pair : (line[i - 1] ?? '');
}

function isKeyChar(c: string): boolean {
  return KEY_CHAR.test(c);
}

/** A character of a word under the cursor outside a citation (the fallback). */
function isWord(c: string): boolean {
  return c !== '' && c < '\x80' ? WORD.test(c) : isKeyChar(c);
}

/** The last index (UTF-16 unit) of the pandoc key starting at `s` (after the @), or undefined. */
function pandocKeyEnd(line: string, s: number): number | undefined {
  if (line[s] === '{') {
    const close = line.indexOf('}', s + 1);
    return close < 0 ? undefined : close;
  }
  const first = charAt(line, s);
  if (!isKeyChar(first)) {
    return undefined;
  }
  let e = s + first.length - 1;
  for (let i = e + 1; i < line.length; ) {
    const c = charAt(line, i);
    const after = charAt(line, i + c.length);
    const inner = c.length === 1 && INNER.includes(c);
    if (isKeyChar(c) || (inner && (isKeyChar(after) || (after === '/' && (c === ':' || c === '/'))))) {
      e = i + c.length - 1;
      i += c.length;
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
    if (isKeyChar(charBefore(line, at))) {
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
  if (!isWord(charAt(line, col))) {
    return undefined;
  }
  let s = col;
  let e = col + charAt(line, col).length - 1;
  while (s > 0 && isWord(charBefore(line, s))) {
    s -= charBefore(line, s).length;
  }
  while (e < line.length - 1 && isWord(charAt(line, e + 1))) {
    e += charAt(line, e + 1).length;
  }
  while (e >= s && INNER.includes(line[e])) {
    e--;
  }
  return e < s || col > e ? undefined : line.slice(s, e + 1);
}
