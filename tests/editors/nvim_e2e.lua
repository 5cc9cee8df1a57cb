-- Headless Neovim end-to-end run of clients/neovim against the real `citewarden serve`.
-- Run: nvim --headless -u nvim_e2e.lua <file>   with the environment:
--   CITEWARDEN_NVIM_PLUGIN  clients/neovim (put on 'runtimepath')
--   CITEWARDEN_E2E_MODE     setup (require('citewarden').setup{}), legacy (the pre-0.11 path)
--                           or enable (0.11: only vim.lsp.enable('citewarden'), config from lsp/)
--   CITEWARDEN_E2E_CODE     code of the diagnostic to fix; CITEWARDEN_E2E_FIX: start of the fix title
--   CITEWARDEN_E2E_KEY      only a diagnostic whose message names this key
--   CITEWARDEN_E2E_APPLY    0: stop after the diagnostic (no fix)
--   CITEWARDEN_E2E_WAIT     comma-separated further codes to wait for (anywhere): until there are
--                           CITEWARDEN_E2E_WAIT_COUNT of them, at most CITEWARDEN_E2E_WAIT_MS
--   CITEWARDEN_E2E_OUT      where to write the JSON result
local env = function(name, default)
  local v = os.getenv(name)
  return (v ~= nil and v ~= '') and v or default
end
local plugin = assert(env('CITEWARDEN_NVIM_PLUGIN'), 'CITEWARDEN_NVIM_PLUGIN not set')
local mode = env('CITEWARDEN_E2E_MODE', 'setup')
local code = env('CITEWARDEN_E2E_CODE', 'dangling-citation')
local fix_prefix = env('CITEWARDEN_E2E_FIX', 'Change to')
local key = env('CITEWARDEN_E2E_KEY', '')
local apply = env('CITEWARDEN_E2E_APPLY', '1') == '1'
local wait_codes = vim.split(env('CITEWARDEN_E2E_WAIT', ''), ',', { trimempty = true })
local wait_ms = tonumber(env('CITEWARDEN_E2E_WAIT_MS', '15000'))
local wait_count = tonumber(env('CITEWARDEN_E2E_WAIT_COUNT', '1'))
local out = assert(env('CITEWARDEN_E2E_OUT'), 'CITEWARDEN_E2E_OUT not set')

vim.opt.runtimepath:prepend(plugin)
vim.g.tex_flavor = 'latex'
vim.opt.swapfile = false

local result = { mode = mode, version = tostring(vim.version().major) .. '.' .. tostring(vim.version().minor), steps = {} }
local t0 = vim.loop.hrtime()
local function step(name, extra)
  local s = { step = name, ms = math.floor((vim.loop.hrtime() - t0) / 1e6) }
  for k, v in pairs(extra or {}) do
    s[k] = v
  end
  table.insert(result.steps, s)
end
local function finish(ok, err)
  result.ok = ok
  result.error = err
  local f = assert(io.open(out, 'w'))
  f:write(vim.fn.json_encode(result))
  f:close()
  for _, client in ipairs(vim.lsp.get_clients and vim.lsp.get_clients() or vim.lsp.get_active_clients()) do
    vim.lsp.stop_client(client.id)
  end
  vim.wait(3000, function()
    return #(vim.lsp.get_clients and vim.lsp.get_clients() or vim.lsp.get_active_clients()) == 0
  end, 50)
  vim.cmd(ok and 'qall!' or 'cquit 3')
end

local function diag_code(d)
  if d.code ~= nil then
    return tostring(d.code)
  end
  local lsp = d.user_data and d.user_data.lsp
  return lsp and lsp.code and tostring(lsp.code) or nil
end

local function all_diagnostics()
  local list = {}
  for _, d in ipairs(vim.diagnostic.get()) do
    list[#list + 1] = {
      file = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(d.bufnr), ':t'),
      code = diag_code(d),
      message = d.message,
      severity = d.severity,
      source = d.source,
      line = d.lnum,
      col = d.col,
    }
  end
  return list
end

-- Record what the server tells the user (an invalid setting would show up here).
result.messages = {}
local show_message = vim.lsp.handlers['window/showMessage']
vim.lsp.handlers['window/showMessage'] = function(err, params, ctx, config)
  table.insert(result.messages, params and params.message or vim.inspect(err))
  return show_message(err, params, ctx, config)
end

-- Tests never touch the network: verification uses only the cache and the snapshot file.
local settings = { verify = { offline = true } }
local snapshot = env('CITEWARDEN_E2E_SNAPSHOT', '')
if snapshot ~= '' then
  settings.verify.snapshot = snapshot
end
if mode == 'enable' then
  -- the configuration comes from the plugin's lsp/citewarden.lua; only settings are added
  vim.lsp.config('citewarden', { settings = { citewarden = settings } })
  vim.lsp.enable('citewarden')
elseif mode == 'legacy' then
  require('citewarden').setup({ legacy = true, settings = settings })
else
  require('citewarden').setup({ settings = settings })
end

-- Headless: choose the offered code action whose title starts with fix_prefix.
vim.ui.select = function(items, opts, on_choice)
  local labels = {}
  local chosen, index
  for i, item in ipairs(items) do
    local label = opts and opts.format_item and opts.format_item(item) or vim.inspect(item)
    labels[#labels + 1] = label
    if chosen == nil and label:find(fix_prefix, 1, true) == 1 then
      chosen, index = item, i
      result.chosen = label
    end
  end
  result.offered = labels
  on_choice(chosen, index)
end

local function find(bufnr)
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if diag_code(d) == code and d.message:find(key, 1, true) then
      return d
    end
  end
  return nil
end

local function run()
  result.filetype = vim.bo.filetype
  -- The diagnostic may be in a file that is not open yet (a chapter): the server checks the
  -- whole project.  Open that file and fix it there.
  local target
  local ok = vim.wait(30000, function()
    target = find(nil)
    return target ~= nil
  end, 50)
  if not ok then
    result.diagnostics = all_diagnostics()
    return finish(false, 'no ' .. code .. ' diagnostic within 30 s')
  end
  if not apply then
    result.diagnostics = all_diagnostics()
    result.client_count = #require('citewarden').clients(0)
    result.client_name = #require('citewarden').clients(0) > 0 and 'citewarden' or nil
    return finish(true)
  end
  local buf = target.bufnr
  if buf ~= vim.api.nvim_get_current_buf() then
    vim.cmd('edit ' .. vim.fn.fnameescape(vim.api.nvim_buf_get_name(buf)))
    buf = vim.api.nvim_get_current_buf()
    vim.wait(10000, function()
      return #require('citewarden').clients(buf) > 0 and find(buf) ~= nil
    end, 50)
    target = find(buf)
    if target == nil then
      return finish(false, 'the diagnostic did not come back after opening its file')
    end
  end
  result.file = vim.api.nvim_buf_get_name(buf)
  result.range = { line = target.lnum, col = target.col, end_line = target.end_lnum, end_col = target.end_col }
  local clients = require('citewarden').clients(buf)
  result.client_name = clients[1] and clients[1].name
  result.root_dir = clients[1] and clients[1].config.root_dir
  step('diagnostic', { message = target.message, line = target.lnum })
  if #wait_codes > 0 then
    local found = vim.wait(wait_ms, function()
      local n = 0
      for _, d in ipairs(vim.diagnostic.get()) do
        if vim.tbl_contains(wait_codes, diag_code(d)) then
          n = n + 1
        end
      end
      return n >= wait_count
    end, 100)
    step('waited for further codes', { found = found })
  end
  result.diagnostics = all_diagnostics()
  local all = vim.lsp.get_clients and vim.lsp.get_clients() or vim.lsp.get_active_clients()
  result.client_count = #all
  local line_before = vim.api.nvim_buf_get_lines(buf, target.lnum, target.lnum + 1, false)[1]
  vim.api.nvim_win_set_cursor(0, { target.lnum + 1, target.col })
  vim.lsp.buf.code_action()
  local applied = vim.wait(10000, function()
    return vim.api.nvim_buf_get_lines(buf, target.lnum, target.lnum + 1, false)[1] ~= line_before
  end, 50)
  result.line_before = line_before
  result.line_after = vim.api.nvim_buf_get_lines(buf, target.lnum, target.lnum + 1, false)[1]
  if not applied then
    return finish(false, 'the code action did not change the buffer')
  end
  step('applied')
  vim.cmd('silent write')
  step('written')
  local cleared = vim.wait(15000, function()
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      if diag_code(d) == code and d.message == target.message then
        return false
      end
    end
    return true
  end, 50)
  result.diagnostics_after = all_diagnostics()
  if not cleared then
    return finish(false, 'the diagnostic did not go away after the fix and the write')
  end
  step('cleared')
  -- the citewarden/status notification, compared with the server's citewarden.status command
  -- once verification has finished
  local cw = require('citewarden')
  local function server_status()
    local responses = vim.lsp.buf_request_sync(buf, 'workspace/executeCommand', { command = 'citewarden.status', arguments = {} }, 10000)
    for _, response in pairs(responses or {}) do
      result.server_status_error = response.err and response.err.message
      return response.result
    end
  end
  vim.wait(20000, function()
    local st = server_status()
    result.server_status = st
    return st ~= nil and not st.verifying and cw.status_text() == cw.format_status(st)
  end, 200)
  local ok_status, status = pcall(vim.api.nvim_exec, 'CitewardenStatus', true)
  result.status_command = ok_status and status or ('error: ' .. tostring(status))
  result.status_text = require('citewarden').status_text()
  finish(true)
end

vim.api.nvim_create_autocmd('VimEnter', {
  nested = true, -- so that :edit runs filetype detection and the FileType autocmds
  callback = function()
    local ok, err = xpcall(run, debug.traceback)
    if not ok then
      finish(false, err)
    end
  end,
})
