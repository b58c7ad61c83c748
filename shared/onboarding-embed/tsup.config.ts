import { defineConfig } from 'tsup';

// A library build: ESM + CJS + declarations, React left to the site (peer dependency), no minification
// (the site's bundler minifies). "use client" keeps React Server Components frameworks from running it
// on the server as a server component.
export default defineConfig({
  entry: { index: 'src/index.tsx' },
  format: ['esm', 'cjs'],
  tsconfig: 'tsconfig.build.json',
  dts: true,
  outDir: 'dist',
  clean: true,
  target: 'es2020',
  platform: 'browser',
  external: ['react', 'react-dom', 'react/jsx-runtime'],
  sourcemap: true,
  treeshake: false,
  splitting: false,
  banner: { js: "'use client';" },
  esbuildOptions(options) {
    options.jsx = 'automatic';
  },
});
