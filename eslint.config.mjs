// Lint. The Obsidian plugin's code (js-shim/src/plugin, ui, core, editor) under eslint-plugin-obsidianmd's
// recommended config (ESLint core, typescript-eslint type-checked rules, Obsidian's rules); the
// Node-only pieces (headless host, panel server) and the test page under typescript-eslint's
// type-checked rules with Node and browser globals.
import obsidianmd from "eslint-plugin-obsidianmd";
import tseslint from "typescript-eslint";
import globals from "globals";

const project = { project: "./js-shim/tsconfig.json", tsconfigRootDir: import.meta.dirname };

export default tseslint.config(
  { ignores: ["js-shim/dist/**", "dist/**", "pkg/**", "node_modules/**", "target/**", "tests/**", "bench/**", "*.mjs", "js-shim/*.mjs"] },
  // The recommended configs keep their own `files` (some lint manifest.json); the Node-only code
  // and the test page are not plugin code.
  ...obsidianmd.configs.recommended.map((config) => ({ ...config, ignores: [...(config.ignores ?? []), "js-shim/src/{node,page}/**"] })),
  {
    files: ["js-shim/src/{plugin,ui,core,editor}/**/*.ts"],
    languageOptions: { parserOptions: project },
    rules: { "obsidianmd/ui/sentence-case": ["warn", { ignoreWords: ["SmartHole"] }] },
  },
  ...tseslint.configs.recommendedTypeChecked.map((config) => ({ ...config, files: ["js-shim/src/{node,page}/**/*.ts"] })),
  {
    files: ["js-shim/src/{node,page}/**/*.ts"],
    languageOptions: { parserOptions: project, globals: { ...globals.node, ...globals.browser } },
  },
);
