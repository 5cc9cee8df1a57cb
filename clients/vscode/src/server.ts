// Finding the command that starts `citewarden serve`.
import { execFile } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';

/** How the language server is started, and how that was decided (for the log). */
export interface ServerCommand {
  command: string;
  args: string[];
  origin: string;
}

/** The server cannot be started; `message` says why and `fix` what to do about it. */
export class ServerNotFound extends Error {
  constructor(message: string, readonly fix: string) {
    super(message);
  }
}

const IS_WINDOWS = process.platform === 'win32';

/** The first executable called `name` on the PATH, or undefined. */
export function findOnPath(name: string, envPath = process.env.PATH ?? ''): string | undefined {
  const exts = IS_WINDOWS ? (process.env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';') : [''];
  for (const dir of envPath.split(path.delimiter)) {
    if (!dir) {
      continue;
    }
    for (const ext of exts) {
      const candidate = path.join(dir, name + ext);
      try {
        fs.accessSync(candidate, fs.constants.X_OK);
        if (fs.statSync(candidate).isFile()) {
          return candidate;
        }
      } catch {
        // not here
      }
    }
  }
  return undefined;
}

function expand(value: string, folder: vscode.WorkspaceFolder | undefined): string {
  let out = value;
  if (out === '~' || out.startsWith('~/')) {
    out = path.join(os.homedir(), out.slice(1));
  }
  if (folder) {
    out = out.split('${workspaceFolder}').join(folder.uri.fsPath);
  }
  return out;
}

/** The interpreter chosen in the Python extension, when it is installed and has one. */
async function pythonExtensionInterpreter(resource: vscode.Uri | undefined): Promise<string | undefined> {
  const ext = vscode.extensions.getExtension('ms-python.python');
  if (!ext) {
    return undefined;
  }
  try {
    const api = ext.isActive ? ext.exports : await ext.activate();
    const env = api?.environments?.getActiveEnvironmentPath?.(resource);
    if (env?.path) {
      return env.path as string;
    }
    const details = api?.settings?.getExecutionDetails?.(resource);
    const exec = details?.execCommand as string[] | undefined;
    return exec && exec.length > 0 ? exec[0] : undefined;
  } catch {
    return undefined;
  }
}

/** Why `python` cannot import citewarden, or undefined when it can. */
function importProblem(python: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(python, ['-c', 'import citewarden'], { timeout: 20000 }, (error, _stdout, stderr) => {
      if (!error) {
        resolve(undefined);
        return;
      }
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') {
        resolve(`${python} was not found`);
        return;
      }
      const lines = String(stderr).trim().split('\n');
      resolve(lines[lines.length - 1] || error.message);
    });
  });
}

/**
 * The command that starts the server: `citewarden.server.command` if set, else `citewarden`
 * on the PATH, else `python -m citewarden` with `citewarden.server.python` or the Python
 * extension's interpreter.  The client adds `--stdio`.
 */
export async function resolveServerCommand(): Promise<ServerCommand> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  const config = vscode.workspace.getConfiguration('citewarden', folder);
  const configured = (config.get<string[]>('server.command') ?? []).filter((s) => s.trim() !== '');
  if (configured.length > 0) {
    const [command, ...args] = configured.map((part) => expand(part, folder));
    const found = path.isAbsolute(command) ? (fs.existsSync(command) ? command : undefined) : findOnPath(command);
    if (!found) {
      throw new ServerNotFound(
        `The command "${command}" from the setting citewarden.server.command was not found.`,
        'Correct the setting (the first item is the program, the rest its arguments, e.g. ' +
          '["/path/to/citewarden", "serve"]), or clear it to use citewarden from PATH.',
      );
    }
    return { command: found, args, origin: 'setting citewarden.server.command' };
  }
  const onPath = findOnPath('citewarden');
  if (onPath) {
    return { command: onPath, args: ['serve'], origin: 'citewarden on PATH' };
  }
  const configuredPython = (config.get<string>('server.python') ?? '').trim();
  let python: string;
  let origin: string;
  if (configuredPython) {
    python = expand(configuredPython, folder);
    origin = 'setting citewarden.server.python';
  } else {
    const fromExtension = await pythonExtensionInterpreter(folder?.uri);
    python = fromExtension ?? (IS_WINDOWS ? 'python' : 'python3');
    origin = fromExtension ? "the Python extension's interpreter" : 'python on PATH';
  }
  const problem = await importProblem(python);
  if (problem) {
    throw new ServerNotFound(
      `citewarden is not on PATH and ${python} (${origin}) cannot run it: ${problem}.`,
      `Install it with \`${python} -m pip install citewarden\`, or set ` +
        '`citewarden.server.command` to the full command, e.g. ["/path/to/citewarden", "serve"].',
    );
  }
  return { command: python, args: ['-m', 'citewarden', 'serve'], origin };
}
