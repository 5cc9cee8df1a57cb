// The settings the user set, as the server reads them (no vscode import: checked in Node).
//
// VS Code's `get('citewarden')` holds every contributed property at its default too; sent to
// the server, those defaults would override the workspace's `.citewarden.toml` (the editor's
// settings come after the file).  Only the values set in a settings file are sent.

/** What `WorkspaceConfiguration.inspect(key)` says of one key (the scopes read here). */
export interface Inspected {
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

/** The value the user set for one key, the most specific scope's (undefined when unset). */
export function explicitValue(inspected: Inspected | undefined): unknown {
  if (!inspected) {
    return undefined;
  }
  for (const value of [inspected.workspaceFolderValue, inspected.workspaceValue, inspected.globalValue]) {
    if (value !== undefined) {
      return value;
    }
  }
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function setPath(out: Record<string, unknown>, path: string[], value: unknown): void {
  let node = out;
  for (const part of path.slice(0, -1)) {
    const next = node[part];
    node = isObject(next) ? next : (node[part] = {});
  }
  node[path[path.length - 1]] = value;
}

/**
 * The `citewarden` section as the user set it: each contributed key (dotted, below the
 * section: `verify.enabled`) with the value `inspect` finds set, nested as the section is;
 * and any key of `section` (the section as VS Code merges it) that is not contributed, which
 * only a settings file can hold, so the server reports it as unknown.
 */
export function explicitSettings(
  keys: readonly string[],
  inspect: (key: string) => Inspected | undefined,
  section: unknown,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    const value = explicitValue(inspect(key));
    if (value !== undefined) {
      setPath(out, key.split('.'), value);
    }
  }
  addUncontributed(out, section, keys, []);
  return out;
}

function addUncontributed(
  out: Record<string, unknown>,
  section: unknown,
  keys: readonly string[],
  prefix: string[],
): void {
  if (!isObject(section)) {
    return;
  }
  for (const [name, value] of Object.entries(section)) {
    const path = [...prefix, name];
    const dotted = path.join('.');
    if (keys.includes(dotted)) {
      continue;
    }
    if (isObject(value) && keys.some((key) => key.startsWith(dotted + '.'))) {
      addUncontributed(out, value, keys, path);
    } else {
      setPath(out, path, value);
    }
  }
}

/** The keys below `section` that a manifest (package.json) contributes: `verify.enabled`. */
export function contributedKeys(manifest: unknown, section: string): string[] {
  const contributes = isObject(manifest) ? manifest.contributes : undefined;
  const configuration = isObject(contributes) ? contributes.configuration : undefined;
  const blocks = Array.isArray(configuration) ? configuration : [configuration];
  const keys: string[] = [];
  for (const block of blocks) {
    const properties = isObject(block) ? block.properties : undefined;
    for (const name of isObject(properties) ? Object.keys(properties) : []) {
      if (name.startsWith(section + '.')) {
        keys.push(name.slice(section.length + 1));
      }
    }
  }
  return keys;
}
