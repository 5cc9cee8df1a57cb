// The language client: how it starts the server, restarts it, and talks settings.
import * as vscode from 'vscode';
import {
  CloseAction,
  CloseHandlerResult,
  DidChangeConfigurationNotification,
  ErrorAction,
  ErrorHandler,
  ErrorHandlerResult,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  Message,
  ServerOptions,
  State,
  StaticFeature,
  DynamicFeature,
  TransportKind,
} from 'vscode-languageclient/node';
import { ServerCommand } from './server';
import { explicitSettings } from './settings';

/** Languages citewarden checks (VS Code language ids). */
export const LANGUAGES = ['latex', 'tex', 'bibtex', 'markdown', 'quarto', 'rmd'];

/** Server commands that the extension registers itself (with arguments from the editor). */
export const SERVER_COMMANDS = [
  'citewarden.verifyAll',
  'citewarden.verifyEntry',
  'citewarden.clearCache',
  'citewarden.report',
  'citewarden.addReference',
];

/** The settings section of citewarden, in VS Code and in the server's requests. */
export const SECTION = 'citewarden';

/** Keys of the `citewarden` section read by the editor only; never sent to the server. */
const CLIENT_ONLY_KEYS = ['server', 'trace'];

/** Restarts allowed within RESTART_WINDOW_MS before the client gives up. */
export const MAX_RESTARTS = 4;
const RESTART_WINDOW_MS = 3 * 60 * 1000;

/** The server settings: the `citewarden` section without the client-only keys. */
export function serverSettings(section: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (section && typeof section === 'object') {
    for (const [key, value] of Object.entries(section as Record<string, unknown>)) {
      if (!CLIENT_ONLY_KEYS.includes(key) && typeof value !== 'function') {
        out[key] = value;
      }
    }
  }
  return out;
}

/**
 * The server settings the user set for `scope` (by default the first workspace folder, whose
 * `.citewarden.toml` the server reads): the contributed `keys` set in a settings file, never
 * their defaults, which would override that file (see ./settings.ts).
 */
function currentServerSettings(keys: readonly string[], scope?: vscode.Uri): Record<string, unknown> {
  const folder = scope ?? vscode.workspace.workspaceFolders?.[0]?.uri;
  const config = vscode.workspace.getConfiguration(SECTION, folder);
  const section = vscode.workspace.getConfiguration(undefined, folder).get(SECTION);
  const settings = explicitSettings(keys, (key) => config.inspect(key), section);
  return serverSettings(JSON.parse(JSON.stringify(settings)));
}

const FIX =
  'Its messages are in the citewarden log. Reinstall it (`pip install --upgrade citewarden`) or ' +
  'correct `citewarden.server.command`, then run "citewarden: Restart the language server".';

/** The message for a server that exits (or cannot be talked to) before it answers initialize. */
export function stoppedWhileStarting(command: string, detail?: string): string {
  const why = detail ? ` (${detail})` : '';
  return `citewarden: the language server (${command}) stopped while starting${why}. ${FIX}`;
}

/**
 * Restart a server that stops after it was running, at most MAX_RESTARTS times in three
 * minutes; a server that stops while starting (a broken installation, a wrong command) is not
 * restarted.  When it gives up, the user is told what to do; the library's own generic
 * messages are replaced by lines in the log.
 */
class RestartingErrorHandler implements ErrorHandler {
  private crashes: number[] = [];
  private running = false;

  constructor(
    private readonly describe: () => string,
    private readonly output: vscode.OutputChannel,
    private readonly onGiveUp: (message: string) => void,
  ) {}

  /** The server answered initialize: a later stop is a crash, not a failed start. */
  markRunning(): void {
    this.running = true;
  }

  error(error: Error, _message: Message | undefined, count: number | undefined): ErrorHandlerResult {
    this.output.appendLine(`[client] connection error: ${error.message}`);
    if (count !== undefined && count <= 3) {
      return { action: ErrorAction.Continue, handled: true };
    }
    return { action: ErrorAction.Shutdown, handled: true };
  }

  closed(): CloseHandlerResult {
    const wasRunning = this.running;
    this.running = false;
    if (!wasRunning) {
      const message = stoppedWhileStarting(this.describe());
      this.output.appendLine(`[client] ${message}`);
      this.onGiveUp(message);
      return { action: CloseAction.DoNotRestart, message, handled: true };
    }
    const now = Date.now();
    this.crashes = this.crashes.filter((t) => now - t < RESTART_WINDOW_MS);
    this.crashes.push(now);
    if (this.crashes.length <= MAX_RESTARTS) {
      const message = `citewarden: the language server stopped; restarting it (${this.crashes.length} of ${MAX_RESTARTS}).`;
      this.output.appendLine(`[client] ${message}`);
      return { action: CloseAction.Restart, message, handled: true };
    }
    const message =
      `citewarden: the language server (${this.describe()}) stopped ${this.crashes.length} times in ` +
      `three minutes and is not restarted again. ${FIX}`;
    this.output.appendLine(`[client] ${message}`);
    this.onGiveUp(message);
    return { action: CloseAction.DoNotRestart, message, handled: true };
  }
}

/**
 * A LanguageClient that leaves SERVER_COMMANDS to the extension: the built-in
 * executeCommand feature would register the server's commands a second time.
 */
class CitewardenLanguageClient extends LanguageClient {
  public registerFeature(feature: StaticFeature | DynamicFeature<any>): void {
    const dynamic = feature as DynamicFeature<any>;
    if (dynamic.registrationType?.method === ExecuteCommandRequest.method) {
      const register = dynamic.register.bind(dynamic);
      dynamic.register = (data) => {
        const commands: string[] = data.registerOptions?.commands ?? [];
        register({
          ...data,
          registerOptions: { ...data.registerOptions, commands: commands.filter((c) => !SERVER_COMMANDS.includes(c)) },
        });
      };
    }
    super.registerFeature(feature);
  }
}

export function createClient(
  server: ServerCommand,
  output: vscode.OutputChannel,
  onGiveUp: (message: string) => void,
  settingKeys: readonly string[],
): LanguageClient {
  const serverOptions: ServerOptions = {
    command: server.command,
    args: server.args,
    transport: TransportKind.stdio,
    options: { env: { ...process.env } },
  };
  const handler = new RestartingErrorHandler(() => [server.command, ...server.args].join(' '), output, onGiveUp);
  const clientOptions: LanguageClientOptions = {
    documentSelector: LANGUAGES.map((language) => ({ scheme: 'file', language })),
    outputChannel: output,
    initializationOptions: currentServerSettings(settingKeys),
    errorHandler: handler,
    // A failed initialize is explained once, by the error handler or the failed start.
    initializationFailedHandler: (error) => {
      output.appendLine(`[client] initialize failed: ${error instanceof Error ? error.message : String(error)}`);
      return false;
    },
    middleware: {
      workspace: {
        // A client being stopped for a restart must not try to send the change (the new
        // client asks for the settings when it starts).  The settings sent, like the answers
        // below, are the ones the user set (the library's would hold every default).
        didChangeConfiguration: async () => {
          if (self?.state === State.Running) {
            await self.sendNotification(DidChangeConfigurationNotification.type, {
              settings: { [SECTION]: currentServerSettings(settingKeys) },
            });
          }
        },
        configuration: async (params, token, next) => {
          const result = await next(params, token);
          if (!Array.isArray(result)) {
            return result;
          }
          return result.map((value, i) => {
            const item = params.items[i];
            if (item?.section !== SECTION) {
              return value;
            }
            return currentServerSettings(settingKeys, item.scopeUri ? vscode.Uri.parse(item.scopeUri) : undefined);
          });
        },
      },
    },
  };
  const self = new CitewardenLanguageClient('citewarden', 'citewarden', serverOptions, clientOptions);
  self.onDidChangeState((event) => {
    if (event.newState === State.Running) {
      handler.markRunning();
    }
  });
  return self;
}
