// Loads code-server in Debian's Chromium (playwright-core), which starts the extension host and
// with it the extension's self-test.  At each phase the self-test pauses (`<phase>.ready`); this
// script then checks what the user would see (squiggle, Problems panel, quick fix menu), takes a
// screenshot and lets the self-test go on (`<phase>.go`).  It writes what it saw to ui.json.
//
// Environment: CS_URL (code-server base URL), WORKSPACE (folder to open), SELFTEST_DIR,
// SHOTS_DIR, CHROMIUM (default /usr/bin/chromium), TIMEOUT_MS (default 120000).
const { chromium } = require('playwright-core');
const fs = require('fs');
const path = require('path');

const url = `${process.env.CS_URL}/?folder=${encodeURIComponent(process.env.WORKSPACE)}`;
const dir = process.env.SELFTEST_DIR;
const shots = process.env.SHOTS_DIR;
const timeout = Number(process.env.TIMEOUT_MS || 120000);
const ui = { phases: {}, consoleErrors: [] };
const t0 = Date.now();
const log = (...a) => console.log(`[${((Date.now() - t0) / 1000).toFixed(1)}s]`, ...a);
const exists = (name) => fs.existsSync(path.join(dir, name));

async function texts(page, selector) {
  return (await page.locator(selector).allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim().slice(0, 1000));
}

async function shoot(page, name) {
  await page.screenshot({ path: path.join(shots, name) });
  log('screenshot', name);
}

async function onDiagnostics(page) {
  const seen = {};
  const squiggle = '.monaco-editor .squiggly-error, .monaco-editor .squiggly-warning, .monaco-editor .squiggly-info';
  await page.waitForSelector(squiggle, { timeout: 30000 });
  seen.squiggles = await page.locator(squiggle).count();
  await page.locator('.markers-panel .monaco-list-row').first().waitFor({ timeout: 15000 });
  await page.waitForTimeout(500);
  seen.problems = await texts(page, '.markers-panel .monaco-list-row');
  await shoot(page, '02_diagnostics.png');
  // The panel shows only the rows that fit: filter it to read the rows of each key.
  seen.filtered = {};
  const filters = (process.env.PROBLEMS_FILTERS || '').split(',').filter((f) => f);
  if (filters.length > 0) {
    const box = page.locator('.part.panel input[placeholder^="Filter"]').first();
    for (const filter of filters) {
      await box.fill(filter);
      await page.waitForTimeout(1000);
      seen.filtered[filter] = await texts(page, '.markers-panel .monaco-list-row');
    }
    await box.fill('');
    await page.waitForTimeout(500);
  }
  return seen;
}

async function onQuickFix(page) {
  const seen = {};
  const rows = page.locator('.action-widget .monaco-list-row');
  try {
    await rows.first().waitFor({ timeout: 15000 });
    seen.menu = await texts(page, '.action-widget .monaco-list-row');
  } catch (e) {
    seen.menuError = String(e.message).split('\n')[0];
  }
  await shoot(page, '03_quickfix_menu.png');
  await page.keyboard.press('Escape');
  return seen;
}

async function onAfter(page) {
  await page.waitForTimeout(1500);
  const seen = { problems: await texts(page, '.markers-panel .monaco-list-row') };
  seen.toasts = await texts(page, '.notifications-toasts .notification-toast');
  seen.statusBar = await texts(page, '.statusbar-item');
  await shoot(page, '04_after_fix.png');
  return seen;
}

async function onNotFound(page) {
  const toasts = '.notifications-toasts .notification-toast';
  await page.locator(toasts, { hasText: '/nonexistent/bin/citewarden' }).first().waitFor({ timeout: 15000 })
    .catch(() => undefined);
  const seen = { toasts: await texts(page, toasts), statusBar: await texts(page, '.statusbar-item') };
  await shoot(page, '05_server_not_found.png');
  return seen;
}

async function onCrashed(page) {
  const toasts = '.notifications-toasts .notification-toast';
  await page.locator(toasts, { hasText: 'stopped while starting' }).first().waitFor({ timeout: 15000 })
    .catch(() => undefined);
  const seen = { toasts: await texts(page, toasts) };
  await shoot(page, '06_server_crashed.png');
  return seen;
}

(async () => {
  fs.mkdirSync(shots, { recursive: true });
  const profile = fs.mkdtempSync(path.join(dir, 'chrome-profile-'));
  const ctx = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1400, height: 860 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'],
  });
  const page = ctx.pages()[0] || (await ctx.newPage());
  page.on('console', (m) => {
    if (m.type() === 'error' && ui.consoleErrors.length < 50) {
      ui.consoleErrors.push(m.text().slice(0, 300));
    }
  });
  let rc = 1;
  try {
    await page.goto(url, { waitUntil: 'domcontentloaded' });
    await page.waitForSelector('.monaco-workbench', { timeout: 60000 });
    log('workbench visible');
    const handlers = { diagnostics: onDiagnostics, quickfix: onQuickFix, after: onAfter, notfound: onNotFound, crashed: onCrashed };
    const done = new Set();
    while (!exists('result.json')) {
      if (Date.now() - t0 > timeout) {
        throw new Error(`no result.json after ${timeout} ms`);
      }
      for (const [phase, handler] of Object.entries(handlers)) {
        if (!done.has(phase) && exists(`${phase}.ready`)) {
          done.add(phase);
          log('phase', phase);
          try {
            ui.phases[phase] = await handler(page);
          } catch (e) {
            ui.phases[phase] = { error: String(e.message).split('\n')[0] };
            await shoot(page, `99_${phase}_failure.png`).catch(() => undefined);
          }
          fs.writeFileSync(path.join(dir, `${phase}.go`), '');
        }
      }
      await page.waitForTimeout(100);
    }
    rc = 0;
  } catch (e) {
    ui.error = String(e.message).split('\n')[0];
    log('FAILED:', ui.error);
    await shoot(page, '99_failure.png').catch(() => undefined);
  } finally {
    fs.writeFileSync(path.join(dir, 'ui.json'), JSON.stringify(ui, null, 2));
    await ctx.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
  process.exit(rc);
})();
