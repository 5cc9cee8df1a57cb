-- User commands of citewarden (:CitewardenStatus, :CitewardenVerifyAll, ...).  The language client
-- itself starts through require('citewarden').setup() or vim.lsp.enable('citewarden').
if vim.g.loaded_citewarden then
  return
end
vim.g.loaded_citewarden = true
require('citewarden').create_commands()
