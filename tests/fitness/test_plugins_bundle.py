"""The code bundle a Ray actor unpacks: same bytes, same folder; importable; concurrent installs agree."""

import io
import sys
import threading
import uuid
import zipfile

from fitness.plugins import install_bundle


def _bundle(name: str, value: int) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(f"{name}.py", f"VALUE = {value}\n")
    return buffer.getvalue()


def test_concurrent_installs_of_one_bundle_share_one_complete_folder():
    name = f"bundle_{uuid.uuid4().hex}"
    data = _bundle(name, 7)
    folders: list[str] = []
    threads = [threading.Thread(target=lambda: folders.append(install_bundle(data))) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(folders)) == 1 and folders[0] == sys.path[0]
    assert __import__(name).VALUE == 7


def test_another_bundle_gets_another_folder():
    name = f"bundle_{uuid.uuid4().hex}"
    assert install_bundle(_bundle(name, 1)) != install_bundle(_bundle(name, 2))
