"""The site layer: generator hooks and every word, table and plot a page
shows from data files. It reads ``evidence`` and never imports torch,
Triton or a tool that produces data."""
