// Palette commands: the server's commands (with arguments taken from the editor) and restart.
import * as vscode from 'vscode';
import { ExecuteCommandRequest, LanguageClient, State } from 'vscode-languageclient/node';
import { keyAt } from './citationKey';

/** The citation key under the cursor of the active editor, if any (see citationKey.ts). */
export function keyAtCursor(editor: vscode.TextEditor | undefined): string | undefined {
  if (!editor) {
    return undefined;
  }
  const at = editor.selection.active;
  return keyAt(editor.document.lineAt(at.line).text, at.character);
}

/** A choice the server offers in an answer of citewarden.addReference. */
interface Choice {
  label: string;
  description?: string;
  args: Record<string, unknown>;
}

export interface Host {
  client(): LanguageClient | undefined;
  restart(): Promise<void>;
  output: vscode.OutputChannel;
}

/** The last failure of each server command (read by the self-test; cleared on success). */
export const commandErrors = new Map<string, string>();

async function sendCommand(host: Host, command: string, args: unknown[]): Promise<unknown> {
  const client = host.client();
  if (!client || client.state !== State.Running) {
    commandErrors.set(command, 'the language server is not running');
    const choice = await vscode.window.showErrorMessage(
      'citewarden: the language server is not running.',
      'Restart server',
      'Show log',
    );
    if (choice === 'Restart server') {
      await host.restart();
    } else if (choice === 'Show log') {
      host.output.show(true);
    }
    return undefined;
  }
  try {
    const result = await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args });
    commandErrors.delete(command);
    return result;
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    commandErrors.set(command, text);
    host.output.appendLine(`[client] ${command} failed: ${text}`);
    void vscode.window.showErrorMessage(`citewarden: ${command} failed: ${text}`);
    return undefined;
  }
}

/** A path or URI in a command result (the report command returns where it wrote). */
function resultLocation(result: unknown): vscode.Uri | undefined {
  const value =
    typeof result === 'string'
      ? result
      : result && typeof result === 'object'
        ? ((result as Record<string, unknown>).uri ?? (result as Record<string, unknown>).path)
        : undefined;
  if (typeof value !== 'string' || value === '') {
    return undefined;
  }
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? vscode.Uri.parse(value) : vscode.Uri.file(value);
}

export function registerCommands(context: vscode.ExtensionContext, host: Host): void {
  const register = (id: string, fn: (...args: unknown[]) => unknown) =>
    context.subscriptions.push(vscode.commands.registerCommand(id, fn));

  register('citewarden.verifyAll', (...args) =>
    vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: 'citewarden: verifying references' },
      () => sendCommand(host, 'citewarden.verifyAll', args),
    ),
  );

  register('citewarden.verifyEntry', async (...args) => {
    if (args.length === 0) {
      const editor = vscode.window.activeTextEditor;
      const key =
        keyAtCursor(editor) ??
        (await vscode.window.showInputBox({
          title: 'citewarden: verify entry',
          prompt: 'Citation key of the entry to verify',
        }));
      if (!key) {
        return undefined;
      }
      args = [{ key, uri: editor?.document.uri.toString() }];
    }
    return sendCommand(host, 'citewarden.verifyEntry', args);
  });

  register('citewarden.clearCache', async (...args) => {
    const result = await sendCommand(host, 'citewarden.clearCache', args);
    if (result !== undefined) {
      void vscode.window.showInformationMessage('citewarden: verification cache cleared.');
    }
    return result;
  });

  register('citewarden.report', async (...args) => {
    const result = await sendCommand(host, 'citewarden.report', args);
    const where = resultLocation(result);
    if (where) {
      // not awaited: the command is done when the report is written, not when the message goes
      void vscode.window
        .showInformationMessage(
          `citewarden: report written to ${where.scheme === 'file' ? where.fsPath : where.toString()}`,
          'Open',
        )
        .then(async (choice) => {
          if (choice !== 'Open') {
            return;
          }
          if (where.path.endsWith('.html')) {
            await vscode.env.openExternal(where);
          } else {
            await vscode.window.showTextDocument(where);
          }
        });
    }
    return result;
  });

  // From the palette (no arguments) or from the "Add entry from DOI / arXiv id / ISBN..."
  // code action ({key, uri} of the dangling citation): ask for the identifier, then the server
  // looks it up and applies the edit (workspace/applyEdit).
  register('citewarden.addReference', async (...args) => {
    const given = (args[0] && typeof args[0] === 'object' ? args[0] : {}) as Record<string, unknown>;
    let id = typeof given.id === 'string' ? given.id : undefined;
    if (!id) {
      id = await vscode.window.showInputBox({
        title: given.key ? `citewarden: add an entry for ${String(given.key)}` : 'citewarden: add a reference',
        prompt: 'DOI, arXiv id, ISBN, PMID or title',
        ignoreFocusOut: true,
      });
      if (!id) {
        return undefined;
      }
    }
    const uri = typeof given.uri === 'string' ? given.uri : vscode.window.activeTextEditor?.document.uri.toString();
    let sent: Record<string, unknown> = { ...given, id, uri };
    let result = (await sendCommand(host, 'citewarden.addReference', [sent])) as Record<string, unknown> | undefined;
    // The server asks for a choice (a title several works have, a document with several
    // bibliographies): offer its choices, then send the command again with the chosen one's arguments.
    for (let round = 0; round < 3; round++) {
      const choose = result?.choose as { prompt?: string; choices?: Choice[] } | undefined;
      if (!choose || !Array.isArray(choose.choices) || choose.choices.length === 0) {
        break;
      }
      const picked = await vscode.window.showQuickPick(
        choose.choices.map((c) => ({ label: c.label, description: c.description, choice: c })),
        { title: `citewarden: ${choose.prompt ?? 'choose'}`, ignoreFocusOut: true },
      );
      if (!picked) {
        return result;
      }
      sent = { ...sent, ...picked.choice.args };
      result = (await sendCommand(host, 'citewarden.addReference', [sent])) as Record<string, unknown> | undefined;
    }
    if (result && result.applied) {
      const where = typeof result.bib === 'string' ? ` to ${result.bib.split(/[\\/]/).pop()}` : '';
      void vscode.window.showInformationMessage(
        `citewarden: added ${String(result.key)}${where}: ${String(result.title)}`,
      );
      if (typeof result.warning === 'string') {
        // a title several works have, none with an identifier to choose by: the first was added
        void vscode.window.showWarningMessage(`citewarden: ${result.warning}`);
      }
    } else if (result && result.present) {
      void vscode.window.showInformationMessage(`citewarden: ${String(result.reason ?? `already present as ${String(result.key)}`)}`);
    } else if (result && typeof result.reason === 'string') {
      void vscode.window.showWarningMessage(`citewarden: nothing added: ${result.reason}`);
    }
    return result;
  });

  register('citewarden.restartServer', () => host.restart());
  register('citewarden.showOutput', () => host.output.show(true));
}

