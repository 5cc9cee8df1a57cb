"""The safe fixer behind ``citewarden check --fix``: write anchored corrections into a .bib.

Only the value spans of corrected fields change (or one new field line is inserted in the
entry's own style, e.g. a missing ``doi``); every other byte of the file stays as it was:
formatting, comments, field order, unknown fields, line endings and encoding.  A file that was
not parsed completely is refused.  Writing is atomic: a temporary file in the same directory,
fsync, ``os.replace``, then an fsync of the directory; the original is kept as a backup first.
The new file keeps the old one's mode, owner and group.  A file with hard links (or one whose
owner this user cannot give a new file) is overwritten in place instead, once the temporary
copy holds the verified new bytes, so that every link sees the change.
A temporary file that a killed run left behind is removed by the next write of that file.

The pure part (:func:`plan_fix`) computes the new bytes; :func:`write_atomically` and
:func:`apply_plan` are the only functions here that touch the disk.

Modules: ``plan`` (the pure planning and its verification), ``write`` (the atomic writer and
backups) and ``run`` (the ``--fix`` / ``--diff`` step of ``citewarden check``).
"""
