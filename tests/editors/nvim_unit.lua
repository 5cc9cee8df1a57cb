-- Checks of clients/neovim's Lua module that need no server: root detection, the client
-- configuration, the status handler and :CitewardenStatus, the key under the cursor.
-- Run: nvim --headless -u nvim_unit.lua   with CITEWARDEN_NVIM_PLUGIN, CITEWARDEN_UNIT_DIR (scratch
-- directory) and CITEWARDEN_UNIT_OUT (JSON result: {failures = [...], checks = n}).
local plugin = assert(os.getenv('CITEWARDEN_NVIM_PLUGIN'))
local dir = assert(os.getenv('CITEWARDEN_UNIT_DIR'))
local out = assert(os.getenv('CITEWARDEN_UNIT_OUT'))
vim.opt.runtimepath:prepend(plugin)

local failures, checks = {}, 0
local function eq(name, got, want)
  checks = checks + 1
  if not vim.deep_equal(got, want) then
    failures[#failures + 1] = string.format('%s: got %s, want %s', name, vim.inspect(got), vim.inspect(want))
  end
end

local function write(path, text)
  vim.fn.mkdir(vim.fn.fnamemodify(path, ':h'), 'p')
  local f = assert(io.open(path, 'w'))
  f:write(text)
  f:close()
end

local ok, err = pcall(function()
  local cw = require('citewarden')

  -- root detection
  write(dir .. '/repo/.git/HEAD', 'ref: refs/heads/main\n')
  write(dir .. '/repo/paper/.latexmkrc', '')
  write(dir .. '/repo/paper/main.tex', '\\documentclass{article}\n')
  write(dir .. '/repo/paper/sections/intro.tex', '\\section{Intro}\n')
  write(dir .. '/loose/book/main.tex', '\\documentclass{book}\n')
  write(dir .. '/loose/book/parts/one.tex', '% !TEX root = ../main.tex\n\\chapter{One}\n')
  write(dir .. '/loose/notes/todo.md', '# notes\n')
  write(dir .. '/quarto/_quarto.yml', 'project:\n  type: book\n')
  write(dir .. '/quarto/chapters/a.qmd', '# A\n')
  eq('.latexmkrc beats .git (earlier marker)', cw.find_root(dir .. '/repo/paper/sections/intro.tex'), dir .. '/repo/paper')
  eq('_quarto.yml', cw.find_root(dir .. '/quarto/chapters/a.qmd'), dir .. '/quarto')
  eq('% !TEX root', cw.find_root(dir .. '/loose/book/parts/one.tex'), dir .. '/loose/book')
  eq('no marker: own directory', cw.find_root(dir .. '/loose/notes/todo.md'), dir .. '/loose/notes')

  -- configuration
  local config = cw.config({ cmd = { 'citewarden', 'serve' } })
  eq('name', config.name, 'citewarden')
  eq('filetypes', config.filetypes, { 'tex', 'plaintex', 'bib', 'markdown', 'quarto', 'rmd' })
  eq('root markers', config.root_markers, { '.citewarden.toml', '.latexmkrc', '.git', '_quarto.yml' })
  eq('no settings: none sent (an empty table would be a JSON array)', config.settings, nil)
  eq('no settings: no init options', config.init_options, nil)
  local with = cw.config({ settings = { debounce_ms = 100, verify = { offline = true } } })
  eq('settings under the citewarden section', with.settings, { citewarden = { debounce_ms = 100, verify = { offline = true } } })
  eq('settings as initializationOptions', with.init_options, { debounce_ms = 100, verify = { offline = true } })
  eq('status handler', type(config.handlers['citewarden/status']), 'function')

  local path = vim.env.PATH
  write(dir .. '/bin/citewarden', '#!/bin/sh\n')
  vim.fn.setfperm(dir .. '/bin/citewarden', 'rwxr-xr-x')
  vim.env.PATH = dir .. '/bin:' .. path
  eq('default cmd: citewarden on PATH', cw.default_cmd(), { 'citewarden', 'serve' })
  vim.env.PATH = dir .. '/nothing'
  vim.g.python3_host_prog = '/opt/py/bin/python3'
  eq('default cmd: python -m citewarden', cw.default_cmd(), { '/opt/py/bin/python3', '-m', 'citewarden', 'serve' })
  vim.env.PATH = path

  -- the citewarden/status notification, :CitewardenStatus and the statusline text
  eq('before any status', cw.status_text(), 'citewarden: no status yet')
  local handler = cw.handlers['citewarden/status']
  handler(nil, { score = 88, tiers = { H = 1, E = 0, M = 2, D = 40 }, verifying = false, done = 43, total = 43 }, { client_id = 7 })
  eq('status text', cw.status_text(7), 'citewarden 88 · H1 E0 M2 D40')
  local stopped = { { source = 'crossref', reason = '2 requests in a row failed (timeout)' }, { source = 'db\nlp', reason = 'x' } }
  handler(nil, { score = 88, tiers = { H = 1, E = 0, M = 2, D = 40 }, verifying = false, verified = 43, total = 43, stopped = stopped }, { client_id = 7 })
  eq('sources that stopped answering (a control character shown as ?)', cw.status_text(7), 'citewarden 88 · H1 E0 M2 D40 · stopped answering: crossref, db?lp')
  handler(nil, { score = 88, tiers = { H = 1, E = 0, M = 2, D = 40 }, verifying = false, verified = 43, total = 43, stopped = { 'crossref', { source = 3 } } }, { client_id = 7 })
  eq('a malformed stopped list names nothing', cw.status_text(7), 'citewarden 88 · H1 E0 M2 D40')
  handler(nil, { score = 88, tiers = { H = 1, E = 0, M = 2, D = 37 }, verifying = true, verified = 40, total = 43 }, { client_id = 7 })
  eq('status while verifying', cw.status_text(7), 'citewarden verifying 40/43 · H1 E0 M2 D37')
  cw.create_commands()
  local messages = {}
  local notify = vim.notify
  vim.notify = function(msg)
    messages[#messages + 1] = msg
  end
  vim.cmd('CitewardenStatus')
  vim.notify = notify
  eq(':CitewardenStatus', messages, { 'citewarden verifying 40/43 · H1 E0 M2 D37' })
  eq('commands', vim.fn.exists(':CitewardenVerifyAll') + vim.fn.exists(':CitewardenVerifyEntry')
    + vim.fn.exists(':CitewardenClearCache') + vim.fn.exists(':CitewardenReport'), 8)

  -- the citation key under the cursor
  local function key_at(line, col)
    vim.api.nvim_buf_set_lines(0, 0, -1, false, { line })
    vim.api.nvim_win_set_cursor(0, { 1, col })
    return cw.key_at_cursor()
  end
  eq('key in \\cite list', key_at('see \\cite{knuth1984,lamport1994}.', 24), 'lamport1994')
  eq('pandoc key', key_at('as shown [@smith:2020, p. 3]', 14), 'smith:2020')
  eq('bib entry key', key_at('@article{doe_2019,', 12), 'doe_2019')
  eq('not on a key', key_at('a {b}', 1), nil)
  -- the cases the VS Code client's keyAt is checked against too (0-based columns counted in
  -- characters, here made the byte the cursor is on)
  local cases_file = assert(os.getenv('CITEWARDEN_KEY_CASES'), 'CITEWARDEN_KEY_CASES not set')
  for _, case in ipairs(vim.fn.json_decode(table.concat(vim.fn.readfile(cases_file), '\n'))) do
    local want = case[4]
    eq(case[1], key_at(case[2], vim.fn.byteidxcomp(case[2], case[3])), want ~= vim.NIL and want or nil)
  end

  -- the choices the server asks for (a title several works have, then the bibliography of a
  -- document with several): offered, and the command sent again with the chosen one's
  -- arguments over the first ones; the message names the file written
  local sent, offered, shown = {}, {}, {}
  local answers = {
    {
      applied = false,
      reason = '2 works are titled ...',
      choose = {
        prompt = 'Which work?',
        choices = {
          { label = 'Shannon 1948, A', description = 'DOI 10.1/a', args = { id = '10.1/a' } },
          { label = 'Shannon 1948, A', description = 'DOI 10.1/b', args = { id = '10.1/b' } },
        },
      },
    },
    {
      applied = false,
      reason = 'several bibliographies (refs.bib, more.bib): choose one, or pass \'bib\'',
      choose = {
        prompt = 'Add to which bibliography?',
        choices = {
          { label = 'refs.bib', description = '/p/refs.bib', args = { bib = '/p/refs.bib' } },
          { label = 'more.bib', description = '/p/more.bib', args = { bib = '/p/more.bib' } },
        },
      },
    },
    { applied = true, key = 'shannon1948mathematical', bib = '/p/more.bib', title = 'Shannon 1948, A' },
  }
  local execute, select, notify2 = cw.execute, vim.ui.select, vim.notify
  cw.execute = function(command, args, on_result)
    sent[#sent + 1] = { command, args[1] }
    on_result(answers[#sent])
  end
  vim.ui.select = function(items, opts, on_choice)
    offered[#offered + 1] = { opts.prompt, opts.format_item(items[1]), opts.format_item(items[2]) }
    on_choice(items[2], 2)
  end
  vim.notify = function(msg)
    shown[#shown + 1] = msg
  end
  cw.add_reference({ id = 'A title', key = 'shannon48', uri = 'file:///p/main.tex' })
  cw.execute, vim.ui.select, vim.notify = execute, select, notify2
  eq('choices offered', offered, {
    { 'Which work?', 'Shannon 1948, A  DOI 10.1/a', 'Shannon 1948, A  DOI 10.1/b' },
    { 'Add to which bibliography?', 'refs.bib  /p/refs.bib', 'more.bib  /p/more.bib' },
  })
  eq('sent again with the choices', { sent[2], sent[3] }, {
    { 'citewarden.addReference', { id = '10.1/b', key = 'shannon48', uri = 'file:///p/main.tex' } },
    {
      'citewarden.addReference',
      { id = '10.1/b', key = 'shannon48', uri = 'file:///p/main.tex', bib = '/p/more.bib' },
    },
  })
  eq('then added, naming the file', shown, { 'citewarden: added shannon1948mathematical to more.bib: Shannon 1948, A' })

  -- a title several works have, none with an identifier to choose by: the first added, and
  -- the server's warning shown as one
  local warned = {}
  vim.notify = function(msg, level)
    warned[#warned + 1] = { msg, level }
  end
  cw.added({ applied = true, key = 'roe2020', title = 'Roe 2020, T', warning = '2 works are titled ...' }, {})
  vim.notify = notify2
  eq('warning shown', warned, {
    { 'citewarden: added roe2020: Roe 2020, T', vim.log.levels.INFO },
    { 'citewarden: 2 works are titled ...', vim.log.levels.WARN },
  })
end)
if not ok then
  failures[#failures + 1] = 'error: ' .. tostring(err)
end
local f = assert(io.open(out, 'w'))
f:write(vim.fn.json_encode({ failures = failures, checks = checks }))
f:close()
vim.cmd(#failures == 0 and 'qall!' or 'cquit 1')
