-- citewarden for Neovim: starts `citewarden serve` for LaTeX, BibTeX and Markdown buffers.
--
--   Neovim 0.11+:  require('citewarden').setup()  (uses vim.lsp.config / vim.lsp.enable)
--                  or just vim.lsp.enable('citewarden') with this plugin on 'runtimepath'
--   Neovim 0.7+:   require('citewarden').setup()  (starts one client per project root on FileType)
--   nvim-lspconfig: require('citewarden').lspconfig(); require('lspconfig').citewarden.setup({})
local M = {}

M.name = 'citewarden'
M.filetypes = { 'tex', 'plaintex', 'bib', 'markdown', 'quarto', 'rmd' }
M.root_markers = { '.citewarden.toml', '.latexmkrc', '.git', '_quarto.yml' }
M.server_commands = {
  'citewarden.verifyAll',
  'citewarden.verifyEntry',
  'citewarden.clearCache',
  'citewarden.report',
  'citewarden.addReference',
}

--- Last `citewarden/status` notification per client id: {score, tiers={H,E,M,D}, verifying, verified, total}.
M.statuses = {}

local uv = vim.uv or vim.loop
local has_011 = vim.fn.has('nvim-0.11') == 1

--- `citewarden serve` if `citewarden` is on PATH, else `python3 -m citewarden serve`.
function M.default_cmd()
  if vim.fn.executable('citewarden') == 1 then
    return { 'citewarden', 'serve' }
  end
  local python = vim.g.python3_host_prog
  if python == nil or python == '' then
    python = vim.fn.executable('python3') == 1 and 'python3' or 'python'
  end
  return { vim.fn.expand(python), '-m', 'citewarden', 'serve' }
end

local function exists(path)
  return uv.fs_stat(path) ~= nil
end

local function is_inside(path, dir)
  return path == dir or path:sub(1, #dir + 1) == dir .. '/'
end

--- The directory of the main file named by a `% !TEX root = ...` line at the top of a LaTeX file.
local function tex_root_dir(file)
  local ok, lines = pcall(vim.fn.readfile, file, '', 20)
  if not ok then
    return nil
  end
  for _, line in ipairs(lines) do
    local main = line:match('^%%%s*!%s*[Tt][Ee][Xx]%s+root%s*=%s*(.-)%s*$')
    if main and main ~= '' then
      local target = main:sub(1, 1) == '/' and main or (vim.fn.fnamemodify(file, ':h') .. '/' .. main)
      return vim.fn.fnamemodify(vim.fn.fnamemodify(target, ':p'), ':h')
    end
  end
  return nil
end

--- Root directories of the citewarden clients already running.
local function running_roots()
  local roots = {}
  local list = vim.lsp.get_clients and vim.lsp.get_clients({ name = M.name }) or vim.lsp.get_active_clients()
  for _, client in ipairs(list) do
    if client.name == M.name and client.config.root_dir then
      roots[#roots + 1] = client.config.root_dir
    end
  end
  return roots
end

--- The project root of `path` (a file or directory): the nearest directory above it holding a root
--- marker (markers in order of preference); else the directory of the main file named by a
--- `% !TEX root = ...` comment; else the root of a running citewarden client that contains it;
--- else its own directory.
function M.find_root(path, markers)
  markers = markers or M.root_markers
  if path == nil or path == '' then
    return vim.fn.getcwd()
  end
  path = vim.fn.fnamemodify(path, ':p')
  local start = vim.fn.isdirectory(path) == 1 and path or vim.fn.fnamemodify(path, ':h')
  start = start:gsub('/$', '')
  for _, marker in ipairs(markers) do
    local dir = start
    while dir and dir ~= '' do
      if exists(dir .. '/' .. marker) then
        return dir
      end
      local parent = vim.fn.fnamemodify(dir, ':h')
      if parent == dir then
        break
      end
      dir = parent
    end
  end
  if path:match('%.tex$') then
    local dir = tex_root_dir(path)
    if dir then
      return (dir:gsub('/$', ''))
    end
  end
  local best
  for _, root in ipairs(running_roots()) do
    root = root:gsub('/$', '')
    if is_inside(start, root) and (best == nil or #root > #best) then
      best = root
    end
  end
  return best or start
end

--- The sources a status says stopped answering: "crossref, dblp", or nil.
local function stopped_sources(s)
  local names = {}
  for _, stop in ipairs(type(s.stopped) == 'table' and s.stopped or {}) do
    if type(stop) == 'table' and type(stop.source) == 'string' then
      -- a name from the server: printable characters only, on one line
      names[#names + 1] = (stop.source:gsub('[%c]', '?'))
    end
  end
  return #names > 0 and table.concat(names, ', ') or nil
end

--- Text for a status table: "citewarden 92 · H0 E1 M2 D40", or the progress while verifying;
--- then "· stopped answering: crossref" when sources were cut off.
function M.format_status(s)
  local t = s.tiers or {}
  local tiers = string.format('H%d E%d M%d D%d', t.H or 0, t.E or 0, t.M or 0, t.D or 0)
  local text
  if s.verifying then
    text = string.format('citewarden verifying %d/%d · %s', s.done or s.verified or 0, s.total or 0, tiers)
  else
    text = string.format('citewarden %d · %s', s.score or 0, tiers)
  end
  local stopped = stopped_sources(s)
  return stopped and (text .. ' · stopped answering: ' .. stopped) or text
end

--- Status text for a client's last status (or the newest of any client's).
function M.status_text(client_id)
  local s = client_id and M.statuses[client_id]
  if s == nil then
    for _, v in pairs(M.statuses) do
      s = v
    end
  end
  if s == nil then
    return 'citewarden: no status yet'
  end
  return M.format_status(s)
end

--- For 'statusline': the status of the client attached to the current buffer, or ''.
function M.statusline()
  for _, client in ipairs(M.clients(0)) do
    if M.statuses[client.id] then
      return M.status_text(client.id)
    end
  end
  return ''
end

local function on_status(err, result, ctx)
  if err or type(result) ~= 'table' then
    return
  end
  M.statuses[ctx.client_id] = result
  vim.schedule(function()
    pcall(vim.cmd, 'redrawstatus')
    pcall(vim.api.nvim_exec_autocmds, 'User', { pattern = 'CitewardenStatus', modeline = false })
  end)
end

M.handlers = { ['citewarden/status'] = on_status }

--- The LSP client configuration; `opts` = {cmd=, settings=, root_markers=, on_attach=, capabilities=}.
function M.config(opts)
  opts = opts or {}
  local config = {
    name = M.name,
    cmd = opts.cmd or M.default_cmd(),
    filetypes = opts.filetypes or M.filetypes,
    root_markers = opts.root_markers or M.root_markers,
    handlers = vim.tbl_extend('force', M.handlers, opts.handlers or {}),
    on_attach = opts.on_attach,
    capabilities = opts.capabilities,
  }
  if has_011 then
    -- Like root_markers, but a file outside any marked project gets its own directory as root
    -- (0.11 would otherwise start the server without a workspace folder).
    config.root_dir = function(bufnr, on_dir)
      on_dir(M.find_root(vim.api.nvim_buf_get_name(bufnr), config.root_markers))
    end
  end
  -- An empty Lua table would reach the server as a JSON array: send settings only when set.
  if type(opts.settings) == 'table' and next(opts.settings) ~= nil then
    config.settings = { citewarden = opts.settings }
    config.init_options = opts.settings
  end
  return config
end

--- Clients of citewarden attached to `bufnr` (0 = current buffer), on any Neovim from 0.7.
function M.clients(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local list = {}
  if vim.lsp.get_clients then
    list = vim.lsp.get_clients({ bufnr = bufnr, name = M.name })
  else
    for _, client in pairs(vim.lsp.buf_get_clients(bufnr)) do
      if client.name == M.name then
        list[#list + 1] = client
      end
    end
  end
  return list
end

-- Neovim before 0.11: one client per root, started when a buffer of a known filetype opens.
local legacy_clients = {}

function M.attach(bufnr, opts)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local config = M.config(opts)
  local root = M.find_root(vim.api.nvim_buf_get_name(bufnr), config.root_markers)
  local id = legacy_clients[root]
  if id == nil or vim.lsp.get_client_by_id(id) == nil or vim.lsp.client_is_stopped(id) then
    config.root_dir = root
    config.workspace_folders = { { uri = vim.uri_from_fname(root), name = root } }
    config.root_markers = nil
    config.filetypes = nil
    id = vim.lsp.start_client(config)
    if id == nil then
      vim.notify('citewarden: could not start ' .. table.concat(config.cmd, ' '), vim.log.levels.ERROR)
      return nil
    end
    legacy_clients[root] = id
  end
  vim.lsp.buf_attach_client(bufnr, id)
  return id
end

--- Run a server command (workspace/executeCommand) through the client of the current buffer.
function M.execute(command, args, on_result)
  local bufnr = vim.api.nvim_get_current_buf()
  if #M.clients(bufnr) == 0 then
    vim.notify('citewarden: no language server attached to this buffer', vim.log.levels.WARN)
    return
  end
  vim.lsp.buf_request(bufnr, 'workspace/executeCommand', { command = command, arguments = args }, function(err, result)
    if err then
      vim.notify(string.format('citewarden: %s failed: %s', command, err.message or vim.inspect(err)), vim.log.levels.ERROR)
    elseif on_result then
      on_result(result)
    end
  end)
end

-- Pandoc's internal punctuation of a key: part of it only when a key character follows.
local INNER = ':.#$%&-+?<>~/'

-- Non-ASCII code points that are no letter or digit (pairs of first, last): Latin-1's
-- punctuation and signs, the punctuation of Greek, Armenian, Hebrew, Arabic and Devanagari,
-- combining diacritics, general and supplemental punctuation, symbols and arrows, CJK and
-- fullwidth punctuation, private use, specials and emoji, as Unicode 14 classes them. Lua
-- patterns know no Unicode classes (and Neovim 0.7 no charclass()): a character outside these
-- ranges counts as a letter or digit, an approximation for the punctuation of rarer scripts.
local NOT_ALNUM = {
  0x0080, 0x00A9, 0x00AB, 0x00B1, 0x00B4, 0x00B4, 0x00B6, 0x00B8, 0x00BB, 0x00BB,
  0x00BF, 0x00BF, 0x00D7, 0x00D7, 0x00F7, 0x00F7, 0x02C2, 0x02C5, 0x02D2, 0x02DF,
  0x02E5, 0x02EB, 0x02ED, 0x02ED, 0x02EF, 0x036F, 0x037E, 0x037E, 0x0387, 0x0387,
  0x055A, 0x055F, 0x0589, 0x0589, 0x05BE, 0x05BE, 0x05C0, 0x05C0, 0x05C3, 0x05C3,
  0x05F3, 0x05F4, 0x060C, 0x060C, 0x061B, 0x061B, 0x061F, 0x061F, 0x066A, 0x066D,
  0x06D4, 0x06D4, 0x0964, 0x0965, 0x0970, 0x0970, 0x2000, 0x206F, 0x2072, 0x2073,
  0x207A, 0x207E, 0x208A, 0x208F, 0x209D, 0x2101, 0x2103, 0x2106, 0x2108, 0x2109,
  0x2114, 0x2114, 0x2116, 0x2118, 0x211E, 0x2123, 0x2125, 0x2125, 0x2127, 0x2127,
  0x2129, 0x2129, 0x212E, 0x212E, 0x213A, 0x213B, 0x2140, 0x2144, 0x214A, 0x214D,
  0x214F, 0x214F, 0x218A, 0x245F, 0x249C, 0x24E9, 0x2500, 0x2775, 0x2794, 0x2BFF,
  0x2E00, 0x2E2E, 0x2E30, 0x2E7F, 0x3000, 0x3004, 0x3008, 0x3020, 0x302A, 0x3030,
  0x3036, 0x3037, 0x303D, 0x303F, 0xE000, 0xF8FF, 0xFE00, 0xFE6F, 0xFE75, 0xFE75,
  0xFEFD, 0xFF0F, 0xFF1A, 0xFF20, 0xFF3B, 0xFF40, 0xFF5B, 0xFF65, 0xFFBF, 0xFFC1,
  0xFFC8, 0xFFC9, 0xFFD0, 0xFFD1, 0xFFD8, 0xFFD9, 0xFFDD, 0xFFFF, 0x1F000, 0x1F0FF,
  0x1F10D, 0x1FAFF,
}

--- The code point of the UTF-8 character at byte `i` of `line` and its length in bytes
--- (nil, 0 past the end; a stray byte is a character of its own).
local function char_at(line, i)
  local b = line:byte(i)
  if b == nil then
    return nil, 0
  end
  local n = b >= 0xF0 and 4 or b >= 0xE0 and 3 or b >= 0xC0 and 2 or 1
  local cp = n == 1 and b or b % (2 ^ (7 - n))
  for k = i + 1, i + n - 1 do
    local c = line:byte(k)
    if c == nil or c < 0x80 or c >= 0xC0 then
      return b, 1
    end
    cp = cp * 64 + c % 64
  end
  return cp, n
end

--- The first byte of the character before byte `i` of `line` (0 at the start).
local function char_before(line, i)
  local j = i - 1
  while j > 1 and i - j < 4 and (line:byte(j) or 0) >= 0x80 and line:byte(j) < 0xC0 do
    j = j - 1
  end
  return j
end

--- True for a character of a pandoc key: a letter, digit (Unicode's, see NOT_ALNUM) or _.
local function is_keychar(cp)
  if cp == nil then
    return false
  elseif cp < 0x80 then
    return string.char(cp):match('[%w_]') ~= nil
  end
  for k = 1, #NOT_ALNUM, 2 do
    if cp < NOT_ALNUM[k] then
      return true
    elseif cp <= NOT_ALNUM[k + 1] then
      return false
    end
  end
  return true
end

--- The last byte of the pandoc key whose first character is at byte `s` (after the @), or
--- nil: letters, digits and _, with `:.#$%&-+?<>~/` inside it only when a letter, digit or _
--- (or, after : or /, a /) follows; `{...}` takes anything up to the brace.
local function pandoc_key_end(line, s)
  if line:sub(s, s) == '{' then
    return line:find('}', s + 1, true)
  end
  local cp, n = char_at(line, s)
  if not is_keychar(cp) then
    return nil
  end
  local e, i = s + n - 1, s + n
  while i <= #line do
    cp, n = char_at(line, i)
    local c, after = line:sub(i, i), char_at(line, i + n)
    local inner = cp < 0x80 and INNER:find(c, 1, true)
    if is_keychar(cp) or (inner and (is_keychar(after) or (after == 47 and (c == ':' or c == '/')))) then
      e = i + n - 1
    else
      break
    end
    i = i + n
  end
  return e
end

--- The key at column `col` (1-based) of `line` inside the braces of `\cite{a, b}` (and the
--- other citation commands: the part between commas, spaces trimmed) or of `@type{key,`.
--- Returns false when the column is in such braces but on no key, nil when in none.
local function braced_key(line, col)
  local open
  for i = col - 1, 1, -1 do
    local c = line:sub(i, i)
    if c == '}' then
      return nil
    elseif c == '{' then
      open = i
      break
    end
  end
  if open == nil then
    return nil
  end
  local before = line:sub(1, open - 1)
  local entry = before:match('@%a+%s*$') ~= nil
  if not entry then
    for _ = 1, 8 do -- optional arguments, and the key groups before this one (\cites{a}{b})
      local stripped = before:gsub('%s*%b[]%s*$', ''):gsub('%s*%b{}%s*$', '')
      if stripped == before then
        break
      end
      before = stripped
    end
    local name = before:match('\\(%a+)%*?%s*$')
    if name == nil or not name:lower():find('cite', 1, true) then
      return nil
    end
  end
  local close = line:find(entry and '[,}]' or '}', open + 1) or (#line + 1)
  if col >= close then
    return nil
  end
  local start = open + 1
  while start <= close do
    local finish = line:find(',', start, true) -- the comma after the piece, or the brace
    if finish == nil or finish > close then
      finish = close
    end
    if col == finish then
      return false -- on a comma
    elseif col < finish then
      local key = vim.trim(line:sub(start, finish - 1))
      return key ~= '' and key or false
    end
    start = finish + 1
  end
  return false
end

--- The pandoc citation `@key` or `@{key}` the column `col` (1-based) is on, or nil.
local function pandoc_key(line, col)
  local at = 0
  while true do
    at = line:find('@', at + 1, true)
    if at == nil or at > col then
      return nil
    end
    if at == 1 or not is_keychar((char_at(line, char_before(line, at)))) then
      local e = pandoc_key_end(line, at + 1)
      if e and col <= e then
        if line:sub(at + 1, at + 1) == '{' then
          return line:sub(at + 2, e - 1)
        end
        return line:sub(at + 1, e)
      end
    end
  end
end

--- The first and last byte of the word at byte `col` of `line` (ASCII characters other than
--- spaces and `{}(),;~#%"'=\@[]`, other letters and digits), or nil.
local function word_at(line, col)
  local function is_word(i)
    local cp = char_at(line, i)
    if cp ~= nil and cp < 0x80 then
      return line:sub(i, i):match('[^%s{}(),;~#%%"\'=\\@%[%]]') ~= nil
    end
    return is_keychar(cp)
  end
  if not is_word(col) then
    return nil
  end
  local s, e = col, col
  while s > 1 and is_word(char_before(line, s)) do
    s = char_before(line, s)
  end
  while e < #line and is_word(e + 1) do
    local _, n = char_at(line, e + 1)
    e = e + n
  end
  return s, e
end

--- The citation key at column `col` (1-based) of `line`, or nil: in `\cite{a, b}` the key
--- between the commas; `@key` as pandoc delimits it (trailing punctuation is no part of it);
--- else the word under the cursor without trailing punctuation.
function M.key_at(line, col)
  local braced = braced_key(line, col)
  if braced ~= nil then
    return braced or nil
  end
  local cited = pandoc_key(line, col)
  if cited then
    return cited
  end
  local s, e = word_at(line, col)
  if s == nil then
    return nil
  end
  while e >= s and INNER:find(line:sub(e, e), 1, true) do
    e = e - 1
  end
  if e < s or col > e then
    return nil
  end
  return line:sub(s, e)
end

--- The citation key under the cursor (without a leading @), or nil.
function M.key_at_cursor()
  return M.key_at(vim.api.nvim_get_current_line(), vim.api.nvim_win_get_cursor(0)[2] + 1)
end

--- Show the answer of `citewarden.addReference` sent with `args`; when the server asks for a
--- choice (a title several works have, a document with several bibliographies), offer its
--- choices with vim.ui.select and send the command again with the chosen one's arguments.
function M.added(result, args)
  if type(result) ~= 'table' then
    return
  end
  local choose = result.choose
  if type(choose) == 'table' and type(choose.choices) == 'table' and #choose.choices > 0 then
    vim.ui.select(choose.choices, {
      prompt = choose.prompt or 'citewarden: choose',
      format_item = function(c)
        return c.description and (c.label .. '  ' .. c.description) or c.label
      end,
    }, function(choice)
      if choice then
        local again = vim.tbl_extend('force', args or {}, choice.args or {})
        M.execute('citewarden.addReference', { again }, function(r)
          M.added(r, again)
        end)
      end
    end)
    return
  end
  if result.applied then
    local where = type(result.bib) == 'string' and (' to ' .. vim.fn.fnamemodify(result.bib, ':t')) or ''
    vim.notify(string.format('citewarden: added %s%s: %s', result.key, where, result.title), vim.log.levels.INFO)
    if type(result.warning) == 'string' then -- a title several works have, none to choose by
      vim.notify('citewarden: ' .. result.warning, vim.log.levels.WARN)
    end
  elseif result.present then
    vim.notify('citewarden: ' .. (result.reason or ('already present as ' .. tostring(result.key))), vim.log.levels.INFO)
  elseif result.reason then
    vim.notify('citewarden: nothing added: ' .. result.reason, vim.log.levels.WARN)
  end
end

--- Add a reference: `args` = {id=, key=, uri=, bib=}; asks for the identifier when `id` is missing.
--- The server looks it up and applies the edit (workspace/applyEdit).
function M.add_reference(args, bufnr)
  args = vim.deepcopy(args or {})
  args.uri = args.uri or vim.uri_from_bufnr(bufnr or 0)
  local function send(id)
    if id == nil or id == '' then
      return
    end
    args.id = id
    M.execute('citewarden.addReference', { args }, function(result)
      M.added(result, args)
    end)
  end
  if args.id and args.id ~= '' then
    send(args.id)
    return
  end
  local prompt = args.key and ('Entry for ' .. args.key .. ' from DOI / arXiv id / ISBN / PMID / title: ')
    or 'DOI / arXiv id / ISBN / PMID / title: '
  vim.ui.input({ prompt = prompt }, send)
end

--- The dangling citation key under the cursor, or nil.
function M.dangling_key_at_cursor()
  local key = M.key_at_cursor()
  if not key then
    return nil
  end
  local row, col = unpack(vim.api.nvim_win_get_cursor(0))
  for _, d in ipairs(vim.diagnostic.get(0, { lnum = row - 1 })) do
    local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
    if code == 'dangling-citation' and d.col <= col and col <= (d.end_col or d.col) then
      return key
    end
  end
  return nil
end

-- The "Add entry from DOI / arXiv id / ISBN..." code action runs here (it needs the identifier).
if vim.lsp.commands then
  vim.lsp.commands['citewarden.addReference'] = function(command, ctx)
    local arg = command.arguments and command.arguments[1] or {}
    M.add_reference(type(arg) == 'table' and arg or { id = arg }, ctx and ctx.bufnr)
  end
end

local commands_created = false

function M.create_commands()
  if commands_created then
    return
  end
  commands_created = true
  local cmd = vim.api.nvim_create_user_command
  cmd('CitewardenStatus', function()
    vim.notify(M.status_text(), vim.log.levels.INFO)
  end, { desc = 'citewarden: show the reference score and risk tiers' })
  cmd('CitewardenVerifyAll', function()
    M.execute('citewarden.verifyAll', {})
  end, { desc = 'citewarden: verify every bibliography entry' })
  cmd('CitewardenVerifyEntry', function(a)
    local key = a.args ~= '' and a.args or M.key_at_cursor()
    if not key then
      vim.notify('citewarden: put the cursor on a citation key or give one', vim.log.levels.WARN)
      return
    end
    M.execute('citewarden.verifyEntry', { { key = key, uri = vim.uri_from_bufnr(0) } })
  end, { nargs = '?', desc = 'citewarden: verify the entry under the cursor' })
  cmd('CitewardenClearCache', function()
    M.execute('citewarden.clearCache', {}, function()
      vim.notify('citewarden: verification cache cleared', vim.log.levels.INFO)
    end)
  end, { desc = 'citewarden: clear the verification cache' })
  cmd('CitewardenAdd', function(a)
    M.add_reference({ id = a.args ~= '' and a.args or nil, key = M.dangling_key_at_cursor() })
  end, { nargs = '?', desc = 'citewarden: add a reference from a DOI, arXiv id, ISBN, PMID or title' })
  cmd('CitewardenReport', function()
    M.execute('citewarden.report', {}, function(result)
      local where = type(result) == 'table' and (result.path or result.uri) or result
      if type(where) == 'string' then
        vim.notify('citewarden: report written to ' .. where, vim.log.levels.INFO)
      end
    end)
  end, { desc = 'citewarden: write a report of the project' })
end

--- Set up citewarden: commands, and the client for every buffer of a known filetype.
--- opts: {cmd=, settings=, root_markers=, filetypes=, on_attach=, capabilities=, legacy=bool}
function M.setup(opts)
  opts = opts or {}
  M.create_commands()
  if has_011 and not opts.legacy then
    vim.lsp.config(M.name, M.config(opts))
    vim.lsp.enable(M.name)
    return
  end
  local group = vim.api.nvim_create_augroup('citewarden', { clear = true })
  local filetypes = opts.filetypes or M.filetypes
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = filetypes,
    callback = function(args)
      M.attach(args.buf, opts)
    end,
  })
  -- buffers that were already open when setup ran
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr) and vim.tbl_contains(filetypes, vim.bo[bufnr].filetype) then
      M.attach(bufnr, opts)
    end
  end
end

--- Register citewarden with nvim-lspconfig's framework (`require('lspconfig').citewarden.setup{}`).
function M.lspconfig(opts)
  local configs = require('lspconfig.configs')
  local util = require('lspconfig.util')
  if not configs.citewarden then
    local config = M.config(opts)
    configs.citewarden = {
      default_config = {
        cmd = config.cmd,
        filetypes = config.filetypes,
        root_dir = util.root_pattern(unpack(config.root_markers)),
        single_file_support = true,
        settings = config.settings,
        init_options = config.init_options,
        handlers = config.handlers,
      },
      docs = { description = 'citewarden: citation checking for LaTeX, Markdown and BibTeX.' },
    }
  end
  M.create_commands()
end

return M
