"""The site layer: generator hooks and every word, table and plot a page
shows from data files. It reads ``evidence`` and never imports torch,
Triton or a tool that produces data.

Modules, one job each:

- ``hooks``: the build's hooks: placeholders expanded in order, access
  levels, sources.
- ``placeholders``: every placeholder kind a page may write, and the check
  refusing others.
- ``fences``: the one scanner that tells code from prose in a page.
- ``build_cache``: what the build computes, kept on disk, keyed by its
  sources.
- ``prefetch``: computes pages' values ahead in a second process, for a cold
  build.
- ``site_files``: the plots and raw files written beside the pages, in a
  second process.
- ``code_blocks``: checks an included fence's title and links it to the
  whole file.
- ``run_boxes``: the "Run it yourself" box: the command and what it prints.
- ``diagrams``: diagram placeholders: SVG figures drawn at build time.
- ``calculators``: calculators and predictions: tested Python run in the
  page.
- ``calculator_runtime``: what a calculator runs in the reader's browser
  (Pyodide).
- ``kernel_editor``: the practice pages' kernel editor, graded in the
  reader's browser, and the table of where each exercise runs.
- ``badges``: the evidence badge at the end of a claim.
- ``glossary``: the glossary page, from ``glossary.yml``.
- ``roadmap``: the learning path: navigation, access levels, roadmap
  placeholders.
- ``search_terms``: search weights and spelling variants for the search
  index.
- ``repository``: the repository's address, for the footer and clone
  commands.
- ``theme_hooks``: the theme's hooks around the pages.
- ``material_patches``: two substitutions in Material's built JavaScript.
- ``bench_pages``: benchmark results as the pages' tables and banners.
- ``bench_format``: times, spreads, rates and sizes as the benchmark pages
  print them.
- ``bench_goals``: the kernels' goals, from the catalog.
- ``bench_plot``: the benchmark plots.
- ``gpu_status``: what evidence exists, for pages that say it once.
- ``artifact_pages``: compiled-artifact facts across compilers.
- ``qualify_pages``: the qualification pages' tables and numbers, from
  verdict files.
- ``memo``: the decision memo's computed parts.
- ``practice_pages``: the practice track's tables, from the exercises' data.
- ``site_speed``: the speed budgets' committed measurements as a table.
"""
