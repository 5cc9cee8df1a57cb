-- Headless Neovim run of "Add entry" (clients/neovim) against the real `citewarden serve`.
-- Run: nvim --headless -u nvim_addref.lua main.tex   with the environment:
--   CITEWARDEN_NVIM_PLUGIN  clients/neovim (put on 'runtimepath')
--   CITEWARDEN_E2E_KEY      the dangling key to add an entry for (through its code action)
--   CITEWARDEN_E2E_ID       an identifier to add with :CitewardenAdd afterwards
--   CITEWARDEN_E2E_OUT      where to write the JSON result
-- The server's sources point at the test's replay server (CITEWARDEN_*_URL).
local env = function(name)
  local v = os.getenv(name)
  return (v ~= nil and v ~= '') and v or nil
end
local plugin = assert(env('CITEWARDEN_NVIM_PLUGIN'), 'CITEWARDEN_NVIM_PLUGIN not set')
local key = assert(env('CITEWARDEN_E2E_KEY'), 'CITEWARDEN_E2E_KEY not set')
local ident = assert(env('CITEWARDEN_E2E_ID'), 'CITEWARDEN_E2E_ID not set')
local out = assert(env('CITEWARDEN_E2E_OUT'), 'CITEWARDEN_E2E_OUT not set')

vim.opt.runtimepath:prepend(plugin)
vim.g.tex_flavor = 'latex'
vim.opt.swapfile = false

local result = { version = tostring(vim.version().major) .. '.' .. tostring(vim.version().minor), messages = {} }
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

local notify = vim.notify
vim.notify = function(msg, level, opts)
  table.insert(result.messages, msg)
  return notify(msg, level, opts)
end

require('citewarden').setup({ settings = { verify = { sources = { 'dblp', 'crossref' } } } })

-- Headless: choose the first "Add entry: " action.
vim.ui.select = function(items, opts, on_choice)
  local labels, chosen, index = {}, nil, nil
  for i, item in ipairs(items) do
    local label = opts and opts.format_item and opts.format_item(item) or vim.inspect(item)
    labels[#labels + 1] = label
    if chosen == nil and label:find('Add entry: ', 1, true) == 1 then
      chosen, index, result.chosen = item, i, label
    end
  end
  result.offered = labels
  on_choice(chosen, index)
end

local function code_of(d)
  if d.code ~= nil then
    return tostring(d.code)
  end
  local lsp = d.user_data and d.user_data.lsp
  return lsp and lsp.code and tostring(lsp.code) or nil
end

local function dangling(buf)
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if code_of(d) == 'dangling-citation' and d.message:find(key, 1, true) then
      return d
    end
  end
  return nil
end

local function bib_text()
  local buf = vim.fn.bufnr('refs.bib')
  if buf == -1 or not vim.api.nvim_buf_is_loaded(buf) then
    return nil
  end
  return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n')
end

local function run()
  local buf = vim.api.nvim_get_current_buf()
  local target
  if not vim.wait(30000, function()
    target = dangling(buf)
    return target ~= nil
  end, 50) then
    return finish(false, 'no dangling-citation diagnostic for ' .. key .. ' within 30 s')
  end
  vim.api.nvim_win_set_cursor(0, { target.lnum + 1, target.col + 1 })
  vim.lsp.buf.code_action()
  if not vim.wait(15000, function()
    local text = bib_text()
    return text ~= nil and text:find('{' .. key .. ',', 1, true) ~= nil
  end, 50) then
    return finish(false, 'the Add entry action did not reach refs.bib')
  end
  result.bib_after_action = bib_text()
  vim.cmd('silent wall')
  if not vim.wait(15000, function()
    return dangling(buf) == nil
  end, 50) then
    return finish(false, 'the dangling diagnostic did not go away')
  end
  -- :CitewardenAdd with an identifier (no dangling key under the cursor)
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  vim.cmd('CitewardenAdd ' .. ident)
  if not vim.wait(15000, function()
    for _, m in ipairs(result.messages) do
      if tostring(m):find('citewarden: added', 1, true) then
        return true
      end
    end
    return false
  end, 50) then
    return finish(false, ':CitewardenAdd did not add an entry')
  end
  vim.cmd('silent wall')
  result.bib_after_command = bib_text()
  finish(true)
end

vim.api.nvim_create_autocmd('VimEnter', {
  nested = true,
  callback = function()
    local ok, err = xpcall(run, debug.traceback)
    if not ok then
      finish(false, err)
    end
  end,
})
