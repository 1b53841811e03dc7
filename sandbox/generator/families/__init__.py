"""Task families, one module per group, or a package whose modules split a large group by concern (its
families still carry the package's name: ``core.family_group``); ``load_families`` imports every one."""
