"""``mobilepa view``: browse the episodes of run folders or a results store, one episode as the model saw it
(verdict first), or two side by side; on a terminal, in a pipe, or as static HTML pages.

``sources`` (rows, filters, which episode a KEY names) · ``episode`` (what one episode shows, gathered once
for every output) · ``terminal`` (rich and plain text) · ``pages`` (the HTML: index, episode, side by side)
· ``command`` (the command line)."""
