"""The doors: the ``uno`` command (:mod:`.main`, one subcommand a module) and the table in the
browser (``uno serve``, :mod:`.serve` with its page in ``data/``). Nothing below imports them."""
