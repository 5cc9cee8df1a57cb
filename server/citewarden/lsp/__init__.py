"""The language server: the only package that speaks LSP (pygls + lsprotocol).

``citewarden serve`` calls :func:`citewarden.lsp.server.main`.
"""
