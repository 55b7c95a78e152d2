-- Headless Neovim: open a manifest, attach `dractl server` with the built-in LSP client (the API
-- of Neovim 0.7, Debian 12's), write the diagnostics it publishes to $DRACTL_TEST_OUT as
-- "line:column code severity" (0-based), one a line. $DRACTL_TEST_FILE names the manifest
-- (default: claim.yaml of the root); $DRACTL_TEST_FOLDERS, if set, the workspace folders
-- (separated by newlines; the root is the first).
local root = vim.env.DRACTL_TEST_ROOT
vim.cmd('edit ' .. vim.fn.fnameescape(vim.env.DRACTL_TEST_FILE or (root .. '/claim.yaml')))
local folders = nil
if vim.env.DRACTL_TEST_FOLDERS then
  folders = {}
  for path in vim.gsplit(vim.env.DRACTL_TEST_FOLDERS, '\n') do
    table.insert(folders, { uri = vim.uri_from_fname(path), name = path })
  end
end
local client_id = vim.lsp.start_client({
  name = 'dractl',
  cmd = { vim.env.DRACTL_TEST_PYTHON, '-m', 'dractl', 'server' },
  root_dir = root,
  workspace_folders = folders,
  init_options = { debounceMs = 0 },
})
vim.lsp.buf_attach_client(0, client_id)
vim.wait(60000, function() return #vim.diagnostic.get(0) > 0 end, 100)
local out = {}
for _, d in ipairs(vim.diagnostic.get(0)) do
  local lsp = (d.user_data or {}).lsp or {}
  table.insert(out, string.format('%d:%d %s %d', d.lnum, d.col, tostring(d.code or lsp.code), d.severity))
end
table.sort(out)
vim.fn.writefile(out, vim.env.DRACTL_TEST_OUT)
vim.lsp.stop_client(client_id)
vim.cmd('qall!')
