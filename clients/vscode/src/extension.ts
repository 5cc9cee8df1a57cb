// citewarden for VS Code: starts `citewarden serve` and shows its status.
import * as vscode from 'vscode';
import { LanguageClient, State } from 'vscode-languageclient/node';
import { createClient, SECTION, stoppedWhileStarting } from './client';
import { Host, registerCommands } from './commands';
import { runSelfTest, SELFTEST_ENV } from './selfTest';
import { resolveServerCommand, ServerNotFound } from './server';
import { contributedKeys } from './settings';
import { STATUS_NOTIFICATION, StatusBar } from './status';

let client: LanguageClient | undefined;
let output: vscode.OutputChannel;
let status: StatusBar;
let starting: Promise<void> | undefined;
/** The settings the extension contributes (`verify.enabled`), from its manifest. */
let settingKeys: string[] = [];

async function offerFix(message: string): Promise<void> {
  const choice = await vscode.window.showErrorMessage(message, 'Open Settings', 'Show Log');
  if (choice === 'Open Settings') {
    await vscode.commands.executeCommand('workbench.action.openSettings', 'citewarden.server');
  } else if (choice === 'Show Log') {
    output.show(true);
  }
}

async function start(): Promise<void> {
  status.setState('starting');
  let server;
  try {
    server = await resolveServerCommand();
  } catch (error) {
    status.setState('failed');
    if (error instanceof ServerNotFound) {
      output.appendLine(`[client] ${error.message} ${error.fix}`);
      void offerFix(`citewarden: cannot start the language server. ${error.message} ${error.fix}`);
    } else {
      output.appendLine(`[client] cannot find the language server: ${String(error)}`);
    }
    return;
  }
  const line = [server.command, ...server.args].join(' ');
  output.appendLine(`[client] starting ${line} (${server.origin})`);
  // One message per start: the error handler and the failed start may both report it.
  let reported = false;
  const fatal = (message: string) => {
    status.setState('failed');
    if (!reported) {
      reported = true;
      void offerFix(message);
    }
  };
  const current = createClient(server, output, fatal, settingKeys);
  client = current;
  current.onNotification(STATUS_NOTIFICATION, (params: unknown) => status.update(params));
  current.onDidChangeState((event) => {
    if (client !== current) {
      return;
    }
    if (event.newState === State.Running) {
      status.setState('running');
    } else if (event.newState === State.Starting) {
      status.setState('starting');
    }
  });
  try {
    await current.start();
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    output.appendLine(`[client] the language server did not start: ${text}`);
    fatal(stoppedWhileStarting(line, text));
  }
}

async function restart(): Promise<void> {
  if (starting) {
    await starting;
  }
  const old = client;
  client = undefined;
  if (old) {
    try {
      if (old.state !== State.Stopped) {
        await old.stop(5000);
      }
    } catch (error) {
      output.appendLine(`[client] stopping the old server: ${String(error)}`);
    }
    await old.dispose().catch(() => undefined);
  }
  starting = start();
  await starting;
  starting = undefined;
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  settingKeys = contributedKeys(context.extension.packageJSON, SECTION);
  output = vscode.window.createOutputChannel('citewarden');
  status = new StatusBar();
  context.subscriptions.push(output, status);
  const host: Host = { client: () => client, restart, output };
  registerCommands(context, host);
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (event.affectsConfiguration('citewarden.server')) {
        const choice = await vscode.window.showInformationMessage(
          'citewarden: the server command changed. Restart the language server now?',
          'Restart',
        );
        if (choice === 'Restart') {
          await restart();
        }
      }
    }),
  );
  starting = start();
  await starting;
  starting = undefined;
  const selfTest = process.env[SELFTEST_ENV];
  if (selfTest) {
    void runSelfTest(selfTest, { client: () => client, status, output });
  }
}

export async function deactivate(): Promise<void> {
  const current = client;
  client = undefined;
  if (current && current.state !== State.Stopped) {
    await current.stop(5000).catch(() => undefined);
  }
}
