// Launching the stack takes seconds on a loaded 2-core machine. testTimeout in a project's config
// is ignored in a multi-project run (it is a global option), so set it here.
jest.setTimeout(60_000);
