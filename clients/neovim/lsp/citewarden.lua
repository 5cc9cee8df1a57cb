-- Configuration for Neovim 0.11's vim.lsp.config: with this plugin on 'runtimepath',
-- `vim.lsp.enable('citewarden')` is all it takes.  Override fields with vim.lsp.config('citewarden', {...}).
return require('citewarden').config()
