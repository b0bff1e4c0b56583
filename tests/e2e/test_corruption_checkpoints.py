"""More damage to checkpoints, each with the outcome tabled in wal/src/lib.rs
(a checkpoint with a manifest that fails any check refuses to start, naming
the file; a checkpoint folder without a manifest never existed)."""

import glob
import os

from test_corruption import committed, populated, refuses_to_start  # noqa: F401 (fixture)


def checkpointed(populated):  # noqa: F811
    """Takes a checkpoint of the populated data dir; returns its folder."""
    server, data_dir = populated
    server.start()
    assert server.http_post("/admin/checkpoint") == 200
    server.kill9()
    folders = glob.glob(os.path.join(data_dir, "checkpoints", "ckpt-*"))
    assert len(folders) == 1, folders
    return folders[0]


def test_a_truncated_checkpoint_file_refuses_to_start_naming_it(populated):  # noqa: F811
    server, _ = populated
    folder = checkpointed(populated)
    victim = max(glob.glob(os.path.join(folder, "*.ckp")), key=os.path.getsize)
    os.truncate(victim, os.path.getsize(victim) // 2)
    code, output = refuses_to_start(server)
    assert code != 0 and victim in output and "bytes, the manifest says" in output, output


def test_a_flipped_byte_in_the_manifest_refuses_to_start_naming_it(populated):  # noqa: F811
    server, _ = populated
    folder = checkpointed(populated)
    manifest = os.path.join(folder, "MANIFEST")
    data = bytearray(open(manifest, "rb").read())
    data[len("nereid-checkpoint 1\ncommit_ts ")] ^= 0x01
    open(manifest, "wb").write(bytes(data))
    code, output = refuses_to_start(server)
    assert code != 0 and manifest in output and "checksum" in output, output


def test_a_newer_checkpoint_without_manifest_is_ignored(populated):  # noqa: F811
    server, data_dir = populated
    folder = checkpointed(populated)
    interrupted = os.path.join(os.path.dirname(folder), "ckpt-00000000000099999999")
    os.makedirs(interrupted)
    with open(os.path.join(interrupted, "nodes-00000.ckp"), "wb") as f:
        f.write(b"half a file")
    server.start()
    assert committed(server) == list(range(10))
    # The next checkpoint deletes the interrupted attempt.
    assert server.http_post("/admin/checkpoint") == 200
    assert not os.path.exists(interrupted)
