// The status bar item: reference score and risk tiers from `citewarden/status`.
import * as vscode from 'vscode';

/** Risk tier counts: High (likely fabricated), Elevated, Moderate, Defensible. */
export interface Tiers {
  H: number;
  E: number;
  M: number;
  D: number;
}

/** Parameters of the server's `citewarden/status` notification. */
export interface StatusParams {
  score: number;
  tiers: Tiers;
  verifying: boolean;
  /** Entries whose verification finished (the server calls it `verified`). */
  done: number;
  total: number;
  /** Entries per verification status (verified, mismatch, not_found, unverified, ...). */
  statuses: Record<string, number>;
  offline: boolean;
  /** Sources cut off now (they stopped answering), with why. */
  stopped: StoppedSource[];
  uri?: string;
}

/** A source the server stopped asking for a while, and why. */
export interface StoppedSource {
  source: string;
  reason: string;
}

export const STATUS_NOTIFICATION = 'citewarden/status';

export type ServerState = 'starting' | 'running' | 'stopped' | 'failed';

const TIER_NAMES: [keyof Tiers, string][] = [
  ['H', 'high risk (likely fabricated or manipulated)'],
  ['E', 'elevated risk'],
  ['M', 'moderate risk'],
  ['D', 'defensible'],
];

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

/** Coerce whatever arrived on the wire into StatusParams (missing numbers count as 0). */
export function parseStatus(raw: unknown): StatusParams {
  const p = (raw ?? {}) as Record<string, unknown>;
  const t = (p.tiers ?? {}) as Record<string, unknown>;
  return {
    score: count(p.score),
    tiers: { H: count(t.H), E: count(t.E), M: count(t.M), D: count(t.D) },
    verifying: p.verifying === true,
    done: count(p.done ?? p.verified),
    total: count(p.total),
    statuses: Object.fromEntries(
      Object.entries((p.statuses ?? {}) as Record<string, unknown>).map(([k, v]) => [k, count(v)]),
    ),
    offline: p.offline === true,
    stopped: (Array.isArray(p.stopped) ? (p.stopped as unknown[]) : [])
      .map((raw) => (raw ?? {}) as Record<string, unknown>)
      .filter((s) => typeof s.source === 'string' && typeof s.reason === 'string')
      .map((s) => ({ source: s.source as string, reason: s.reason as string })),
    uri: typeof p.uri === 'string' ? p.uri : undefined,
  };
}

/** The status bar text for a status (exported for the self-test and for clarity). */
export function statusText(s: StatusParams): string {
  const tiers = `H${s.tiers.H} E${s.tiers.E} M${s.tiers.M} D${s.tiers.D}`;
  if (s.verifying) {
    return `$(sync~spin) citewarden ${s.done}/${s.total} · ${tiers}`;
  }
  const unverified = s.statuses.unverified ?? 0;
  const icon = s.tiers.H > 0 ? '$(error)' : s.tiers.E > 0 ? '$(warning)' : unverified > 0 ? '$(question)' : '$(pass)';
  return `${icon} citewarden ${s.score} · ${tiers}`;
}

export class StatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private state: ServerState = 'starting';
  private last: StatusParams | undefined;
  /** The texts shown so far, newest last (at most 100; read by the self-test). */
  readonly history: string[] = [];

  constructor() {
    this.item = vscode.window.createStatusBarItem('citewarden.status', vscode.StatusBarAlignment.Left, 50);
    this.item.name = 'citewarden';
    this.render();
    this.item.show();
  }

  /** The text shown right now (read by the self-test). */
  get text(): string {
    return this.item.text;
  }

  get serverState(): ServerState {
    return this.state;
  }

  get status(): StatusParams | undefined {
    return this.last;
  }

  setState(state: ServerState): void {
    this.state = state;
    this.render();
  }

  update(raw: unknown): void {
    this.last = parseStatus(raw);
    this.render();
  }

  private render(): void {
    this.draw();
    if (this.history[this.history.length - 1] !== this.item.text) {
      this.history.push(this.item.text);
      if (this.history.length > 100) {
        this.history.shift();
      }
    }
  }

  private draw(): void {
    const item = this.item;
    item.backgroundColor = undefined;
    if (this.state === 'failed' || this.state === 'stopped') {
      item.text = '$(error) citewarden';
      item.tooltip =
        this.state === 'failed'
          ? 'The citewarden language server is not running. Click to restart it; the log says why it stopped.'
          : 'The citewarden language server is stopped. Click to start it.';
      item.command = 'citewarden.restartServer';
      item.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
      return;
    }
    if (!this.last) {
      item.text = this.state === 'starting' ? '$(loading~spin) citewarden' : '$(book) citewarden';
      item.tooltip = this.state === 'starting' ? 'Starting the citewarden language server' : 'citewarden';
      item.command = 'citewarden.showOutput';
      return;
    }
    const s = this.last;
    item.text = statusText(s);
    const md = new vscode.MarkdownString(undefined, true);
    md.appendMarkdown(`**citewarden** reference score **${s.score}**/100\n\n`);
    if (s.verifying) {
      md.appendMarkdown(`Verifying references: ${s.done} of ${s.total}\n\n`);
    }
    for (const [key, name] of TIER_NAMES) {
      md.appendMarkdown(`- ${key}: ${s.tiers[key]} ${name}\n`);
    }
    const unverified = s.statuses.unverified ?? 0;
    if (unverified > 0) {
      md.appendMarkdown(`\n${unverified} not verified (no source could be reached)\n`);
    }
    for (const stop of s.stopped) {
      // names and reasons come from the server: shown as text, never as Markdown
      md.appendMarkdown('\n');
      md.appendText(`${stop.source} stopped answering (${stop.reason}): not asked for a while`);
      md.appendMarkdown('\n');
    }
    if (s.offline) {
      md.appendMarkdown('\nOffline: only the cache and the snapshot file are used.\n');
    }
    md.appendMarkdown('\nClick to verify all references again.');
    item.tooltip = md;
    item.command = 'citewarden.verifyAll';
    if (s.tiers.H > 0) {
      item.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
    } else if (s.tiers.E > 0) {
      item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
    }
  }

  dispose(): void {
    this.item.dispose();
  }
}
