// End-to-end self-test inside the real extension host, run only when CITEWARDEN_VSCODE_SELFTEST
// names a directory holding spec.json.  It opens a file, waits for citewarden's diagnostics,
// applies a quick fix through VS Code's own code action and edit machinery, saves, and writes
// what it saw to result.json.  Between phases it can pause so that a browser takes screenshots.
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { LanguageClient, State } from 'vscode-languageclient/node';
import { commandErrors } from './commands';
import { parseStatus, StatusBar, statusText } from './status';

export const SELFTEST_ENV = 'CITEWARDEN_VSCODE_SELFTEST';

interface Spec {
  /** File to open, relative to the first workspace folder. */
  file: string;
  /** Code of the diagnostic to fix, and (optionally) a key its message names. */
  code: string;
  key?: string;
  /** Start of the title of the quick fix to apply. */
  fixPrefix: string;
  /** Further codes to wait for (anywhere), until there are waitForCount of them, up to extraWaitMs. */
  waitForCodes?: string[];
  waitForCount?: number;
  extraWaitMs?: number;
  /** Write `<phase>.ready` and wait for `<phase>.go` at each phase (for screenshots). */
  pause?: boolean;
  /** Palette commands to run (with these arguments) when the server offers them. */
  serverCommands?: [string, unknown[]][];
  /** Save every edited file after the fix (an edit in another file, e.g. an added entry). */
  saveAll?: boolean;
  /** Files (relative to the workspace folder) whose text on disk goes into result.readBack. */
  readBack?: string[];
  /** Then kill the server (it must come back), and start it with a wrong command (clear error). */
  resilience?: boolean;
  timeoutMs?: number;
}

interface Context {
  client(): LanguageClient | undefined;
  status: StatusBar;
  output: vscode.OutputChannel;
}

function codeOf(d: vscode.Diagnostic): string | undefined {
  const code = d.code;
  if (code === undefined) {
    return undefined;
  }
  return typeof code === 'object' ? String(code.value) : String(code);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function waitFor<T>(what: string, fn: () => T | undefined | Promise<T | undefined>, ms: number): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const value = await fn();
    if (value !== undefined) {
      return value;
    }
    if (Date.now() - t0 > ms) {
      throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    }
    await sleep(100);
  }
}

function citewardenDiagnostics(root: vscode.Uri): object[] {
  const out: object[] = [];
  for (const [uri, diags] of vscode.languages.getDiagnostics()) {
    for (const d of diags) {
      if (d.source !== 'citewarden') {
        continue;
      }
      out.push({
        file: path.relative(root.fsPath, uri.fsPath),
        code: codeOf(d),
        message: d.message,
        severity: vscode.DiagnosticSeverity[d.severity],
        line: d.range.start.line,
        character: d.range.start.character,
        endLine: d.range.end.line,
        endCharacter: d.range.end.character,
      });
    }
  }
  return out;
}

/** Process id of the language server (a child of this extension host), if one is running. */
function serverPid(): number | undefined {
  try {
    const out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' });
    for (const line of out.split('\n')) {
      const m = /^\s*(\d+)\s+(.*)$/.exec(line);
      if (m && /citewarden/.test(m[2]) && /\bserve\b/.test(m[2])) {
        return Number(m[1]);
      }
    }
  } catch {
    // no ps, or no children
  }
  return undefined;
}

async function resilience(ctx: Context, timeout: number, step: (name: string, extra?: object) => void,
  phase: (name: string) => Promise<void>): Promise<object> {
  const out: Record<string, unknown> = {};
  // A new server publishes the project's diagnostics again (the client drops the old ones).
  const republished = () => {
    const n = citewardenDiagnostics(vscode.workspace.workspaceFolders![0].uri).length;
    return n > 0 ? n : undefined;
  };
  // 1. the server dies: the client starts a new one by itself
  const oldPid = await waitFor('the server process', serverPid, timeout);
  process.kill(oldPid, 'SIGKILL');
  step('server killed', { pid: oldPid });
  out.newPid = await waitFor(
    'a restarted server',
    () => {
      const pid = serverPid();
      return pid !== undefined && pid !== oldPid && ctx.client()?.state === State.Running ? pid : undefined;
    },
    timeout,
  );
  out.oldPid = oldPid;
  out.diagnosticsAfterRestart = await waitFor('diagnostics from the restarted server', republished, timeout);
  step('server restarted', out);
  // 2. the configured command does not exist: a clear message, and the status bar says so
  await vscode.commands.executeCommand('notifications.clearAll');
  const config = vscode.workspace.getConfiguration('citewarden');
  await config.update('server.command', ['/nonexistent/bin/citewarden', 'serve'], vscode.ConfigurationTarget.Global);
  await sleep(1000); // let the running client pass the change on before it is stopped
  await vscode.commands.executeCommand('citewarden.restartServer');
  out.notFoundState = ctx.status.serverState;
  out.notFoundStatusText = ctx.status.text;
  step('wrong command', { state: out.notFoundState });
  await phase('notfound');
  // 3. a server that dies at once (a broken installation): not restarted, a message instead
  await vscode.commands.executeCommand('notifications.clearAll');
  await config.update(
    'server.command',
    ['/bin/sh', '-c', 'echo "citewarden: broken installation" >&2; exit 3'],
    vscode.ConfigurationTarget.Global,
  );
  await sleep(1000);
  await vscode.commands.executeCommand('citewarden.restartServer');
  await waitFor('the client to give up', () => (ctx.status.serverState === 'failed' ? true : undefined), timeout);
  out.crashState = ctx.status.serverState;
  step('server that dies at once', { state: out.crashState });
  await phase('crashed');
  // 4. back to the default command
  await config.update('server.command', undefined, vscode.ConfigurationTarget.Global);
  await vscode.commands.executeCommand('citewarden.restartServer');
  await waitFor('the server after fixing the setting', () => (ctx.client()?.state === State.Running ? true : undefined), timeout);
  out.recoveredDiagnostics = await waitFor('diagnostics after recovery', republished, timeout);
  step('recovered');
  return out;
}

export async function runSelfTest(dir: string, ctx: Context): Promise<void> {
  const t0 = Date.now();
  const result: Record<string, unknown> = { ok: false, steps: [] as object[] };
  const step = (name: string, extra: object = {}) => {
    (result.steps as object[]).push({ ms: Date.now() - t0, step: name, ...extra });
    ctx.output.appendLine(`[self-test] ${name}`);
  };
  const write = () => fs.writeFileSync(path.join(dir, 'result.json'), JSON.stringify(result, null, 2));
  const phase = async (name: string) => {
    if (!spec.pause) {
      return;
    }
    fs.writeFileSync(path.join(dir, `${name}.ready`), '');
    await waitFor(`${name}.go`, () => (fs.existsSync(path.join(dir, `${name}.go`)) ? true : undefined), 60000);
  };
  let spec: Spec = { file: '', code: '', fixPrefix: '' };
  try {
    spec = JSON.parse(fs.readFileSync(path.join(dir, 'spec.json'), 'utf8')) as Spec;
    const timeout = spec.timeoutMs ?? 60000;
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (!folder) {
      throw new Error('no workspace folder is open');
    }
    await waitFor(
      'the language server',
      () => {
        if (ctx.status.serverState === 'failed') {
          throw new Error('the language server could not be started (see the citewarden log)');
        }
        return ctx.client()?.state === State.Running ? true : undefined;
      },
      timeout,
    );
    step('server running');
    const wanted = (d: vscode.Diagnostic) =>
      d.source === 'citewarden' && codeOf(d) === spec.code && d.message.includes(spec.key ?? '');
    const first = await vscode.workspace.openTextDocument(vscode.Uri.joinPath(folder.uri, spec.file));
    await vscode.window.showTextDocument(first);
    step('opened', { languageId: first.languageId });

    // The diagnostic may be in a file that is not open yet (a chapter): the server checks the
    // whole project.  Open that file and fix it there.
    const found = await waitFor(
      `a ${spec.code} diagnostic`,
      () => {
        for (const [u, ds] of vscode.languages.getDiagnostics()) {
          const d = ds.find((x) => wanted(x));
          if (d) {
            return u;
          }
        }
        return undefined;
      },
      timeout,
    );
    const uri = found;
    const doc = await vscode.workspace.openTextDocument(uri);
    const editor = await vscode.window.showTextDocument(doc);
    const target = await waitFor(
      `the ${spec.code} diagnostic in ${uri.fsPath}`,
      () => vscode.languages.getDiagnostics(uri).find((d) => wanted(d)),
      timeout,
    );
    result.file = uri.fsPath;
    result.languageId = doc.languageId;
    result.range = {
      line: target.range.start.line,
      character: target.range.start.character,
      endLine: target.range.end.line,
      endCharacter: target.range.end.character,
    };
    result.lineBefore = doc.lineAt(target.range.start.line).text;
    step('diagnostic', { message: target.message, line: target.range.start.line });
    if (spec.waitForCodes && spec.waitForCodes.length > 0) {
      const wanted = spec.waitForCodes;
      const found = await waitFor(
        `one of ${wanted.join(', ')}`,
        () => {
          let n = 0;
          for (const [, ds] of vscode.languages.getDiagnostics()) {
            n += ds.filter((d) => d.source === 'citewarden' && wanted.includes(codeOf(d) ?? '')).length;
          }
          return n >= (spec.waitForCount ?? 1) ? true : undefined;
        },
        spec.extraWaitMs ?? 20000,
      ).catch(() => false);
      step('waited for further codes', { found });
    }
    result.diagnosticsBefore = citewardenDiagnostics(folder.uri);

    // Show the problem as a user sees it: cursor on it, Problems panel, quick fix menu.
    editor.selection = new vscode.Selection(target.range.start, target.range.start);
    editor.revealRange(target.range, vscode.TextEditorRevealType.InCenter);
    await vscode.commands.executeCommand('workbench.actions.view.problems');
    await vscode.commands.executeCommand('workbench.action.focusActiveEditorGroup');
    await sleep(300);
    await phase('diagnostics');
    await vscode.commands.executeCommand('editor.action.quickFix');
    await sleep(500);
    await phase('quickfix');

    const actions = await waitFor(
      'code actions',
      async () => {
        const list = await vscode.commands.executeCommand<vscode.CodeAction[]>(
          'vscode.executeCodeActionProvider',
          uri,
          target.range,
          vscode.CodeActionKind.QuickFix.value,
        );
        return list && list.some((a) => a.title.startsWith(spec.fixPrefix)) ? list : undefined;
      },
      timeout,
    );
    result.codeActions = actions.map((a) => a.title);
    const fix = actions.find((a) => a.title.startsWith(spec.fixPrefix)) as vscode.CodeAction;
    step('code action', { title: fix.title });
    result.appliedTitle = fix.title;
    result.applied = fix.edit ? await vscode.workspace.applyEdit(fix.edit) : false;
    if (fix.command) {
      await vscode.commands.executeCommand(fix.command.command, ...(fix.command.arguments ?? []));
    }
    result.saved = await doc.save();
    if (spec.saveAll) {
      // every document the fix edited (an added entry goes into the bibliography)
      let all = true;
      for (const [edited] of fix.edit ? fix.edit.entries() : []) {
        const other = await vscode.workspace.openTextDocument(edited);
        all = (other.isDirty ? await other.save() : true) && all;
      }
      result.savedAll = all;
    }
    result.onDisk = fs.readFileSync(uri.fsPath, 'utf8');
    result.readBack = Object.fromEntries(
      (spec.readBack ?? []).map((f) => [f, fs.readFileSync(path.join(folder.uri.fsPath, f), 'utf8')]),
    );
    step('applied and saved', { applied: result.applied, saved: result.saved });
    await waitFor(
      `the ${spec.code} diagnostic to go away`,
      () =>
        vscode.languages
          .getDiagnostics(uri)
          .some((d) => d.source === 'citewarden' && codeOf(d) === spec.code && d.message === target.message)
          ? undefined
          : true,
      timeout,
    );
    step('diagnostic cleared');
    await sleep(500);
    result.diagnosticsAfter = citewardenDiagnostics(folder.uri);
    result.commands = (await vscode.commands.getCommands(true)).filter((c) => c.startsWith('citewarden.')).sort();
    // The server commands it offers, run from the palette's command ids.
    const offered: string[] = ctx.client()?.initializeResult?.capabilities.executeCommandProvider?.commands ?? [];
    result.serverCommands = offered;
    const runs: Record<string, string> = {};
    for (const [command, args] of spec.serverCommands ?? []) {
      if (offered.includes(command)) {
        const value = await vscode.commands.executeCommand(command, ...args);
        runs[command] = commandErrors.get(command) ?? `ok: ${JSON.stringify(value) ?? 'undefined'}`;
      }
    }
    result.commandRuns = runs;
    step('server commands', { runs });
    // The status bar follows the server's citewarden/status notification.
    if (offered.includes('citewarden.status')) {
      // once verification has finished, the last notification is the server's current status
      result.serverStatus = await waitFor(
        'the status bar to match citewarden.status',
        async () => {
          const server = parseStatus(await vscode.commands.executeCommand('citewarden.status'));
          const shown = ctx.status.status;
          return !server.verifying && shown && statusText(shown) === statusText(server) ? server : undefined;
        },
        timeout,
      ).catch(async () => vscode.commands.executeCommand('citewarden.status'));
    }
    result.statusText = ctx.status.text;
    result.status = ctx.status.status ?? null;
    result.statusHistory = [...ctx.status.history];
    await phase('after');
    if (spec.resilience) {
      result.resilience = await resilience(ctx, timeout, step, phase);
    }
    result.ok = true;
  } catch (error) {
    result.error = error instanceof Error ? (error.stack ?? error.message) : String(error);
    try {
      const folder = vscode.workspace.workspaceFolders?.[0];
      if (folder) {
        result.diagnosticsAtFailure = citewardenDiagnostics(folder.uri);
      }
    } catch {
      // keep the original error
    }
  }
  result.totalMs = Date.now() - t0;
  write();
}
