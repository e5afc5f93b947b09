"""The one GLB reader and writer of the Blender checks (tools/blender/*.py), independent of Blender.

Written from the glTF 2.0 specification's binary container (section "GLB File Format
Specification"): a 12-byte header (magic `glTF`, version 2, total length), then chunks of
(length, type, data): the JSON chunk (type 0x4E4F534A "JSON") first, the BIN chunk (0x004E4942
"BIN\\0") optional after it. Accessors are read with the view's byteStride and the view's and
the accessor's byteOffset; a normalized integer c becomes max(c / (2^(n-1) - 1), -1) when signed,
c / (2^n - 1) when unsigned (the specification's conversion of normalized integers).

    from glb import Glb, read_glb, write_glb
    g = Glb(path); g.triangles(); g.accessor(i)
    doc, rest = read_glb(path); ...; write_glb(out, doc, rest)
"""
import json
import struct
from pathlib import Path

MAGIC = b"glTF"
JSON_CHUNK = 0x4E4F534A
BIN_CHUNK = 0x004E4942

COMPONENTS = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT4": 16}
# componentType → (struct format, the divisor of a normalized value; None: never normalized)
CTYPES = {5120: ("b", 127.0), 5121: ("B", 255.0), 5122: ("h", 32767.0), 5123: ("H", 65535.0),
          5125: ("I", None), 5126: ("f", None)}


def split_glb(data, name="GLB"):
    """(JSON document, BIN chunk bytes or b"", the bytes after the JSON chunk) of GLB bytes.

    Raises ValueError naming the offset when the header or the JSON chunk is not a GLB's."""
    if len(data) < 20 or data[:4] != MAGIC:
        raise ValueError(f"{name}: offset 0: not a GLB (magic {bytes(data[:4])!r})")
    version, total = struct.unpack_from("<II", data, 4)
    if version != 2:
        raise ValueError(f"{name}: offset 4: GLB version {version}, not 2")
    json_len, json_type = struct.unpack_from("<II", data, 12)
    if json_type != JSON_CHUNK or 20 + json_len > len(data):
        raise ValueError(f"{name}: offset 12: the first chunk is not a JSON chunk of {json_len} bytes")
    doc = json.loads(data[20 : 20 + json_len])
    off = 20 + json_len
    rest = data[off:]
    binary = b""
    if off + 8 <= len(data):
        bin_len, bin_type = struct.unpack_from("<II", data, off)
        if bin_type == BIN_CHUNK:
            binary = data[off + 8 : off + 8 + bin_len]
    return doc, binary, rest


def read_glb(path):
    """(JSON document, the bytes after the JSON chunk) of the GLB file at path."""
    doc, _, rest = split_glb(Path(path).read_bytes(), str(path))
    return doc, rest


def write_glb(path, doc, rest):
    """Writes a GLB of `doc` (JSON, padded with spaces to 4 bytes) and `rest` (the chunks after
    the JSON chunk, as read_glb returned them) to path."""
    j = json.dumps(doc, separators=(",", ":")).encode()
    j += b" " * (-len(j) % 4)
    head = struct.pack("<4sII", MAGIC, 2, 20 + len(j) + len(rest))
    Path(path).write_bytes(head + struct.pack("<II", len(j), JSON_CHUNK) + j + rest)


class Glb:
    """A GLB file read whole: `doc` (its JSON), `bin` (its BIN chunk), `nodes`, `parent`."""

    def __init__(self, path):
        self.path = Path(path)
        self.doc, self.bin, _ = split_glb(self.path.read_bytes(), str(self.path))
        self.nodes = self.doc.get("nodes", [])
        self.parent = {}
        for i, n in enumerate(self.nodes):
            for c in n.get("children", []):
                self.parent[c] = i

    def accessor(self, index):
        """The elements of accessor `index` as tuples (normalized integers as floats)."""
        acc = self.doc["accessors"][index]
        n = COMPONENTS[acc["type"]]
        fmt, norm = CTYPES[acc["componentType"]]
        view = self.doc["bufferViews"][acc["bufferView"]]
        size = struct.calcsize("<" + fmt)
        stride = view.get("byteStride") or size * n
        base = view.get("byteOffset", 0) + acc.get("byteOffset", 0)
        out = []
        for k in range(acc["count"]):
            vals = struct.unpack_from("<" + fmt * n, self.bin, base + k * stride)
            if acc.get("normalized") and norm:
                vals = tuple(max(v / norm, -1.0) for v in vals)
            out.append(vals)
        return out

    def mesh_triangles(self, mi):
        """The triangles of mesh `mi`: its indexed primitives' index counts / 3."""
        return sum(self.doc["accessors"][p["indices"]]["count"] // 3
                   for p in self.doc["meshes"][mi]["primitives"] if "indices" in p)

    def root_of(self, i):
        while i in self.parent:
            i = self.parent[i]
        return i

    def scene_nodes(self):
        """The nodes of the default scene (what an importer shows)."""
        scenes = self.doc.get("scenes", [])
        if not scenes:
            return set(range(len(self.nodes)))
        stack = list(scenes[self.doc.get("scene", 0)].get("nodes", []))
        seen = set()
        while stack:
            i = stack.pop()
            if i not in seen:
                seen.add(i)
                stack += self.nodes[i].get("children", [])
        return seen

    def triangles(self):
        """The triangles an importer shows: every mesh instance of the default scene."""
        return sum(self.mesh_triangles(self.nodes[i]["mesh"]) for i in self.scene_nodes()
                   if "mesh" in self.nodes[i])

    def instanced_triangles(self):
        """The triangles of every node with a mesh, in a scene or not."""
        return sum(self.mesh_triangles(n["mesh"]) for n in self.nodes if "mesh" in n)

    def untransformed(self, i):
        """Whether node i and its ancestors have no transform."""
        while True:
            n = self.nodes[i]
            if any(k in n for k in ("matrix", "translation", "rotation", "scale")):
                return False
            if i not in self.parent:
                return True
            i = self.parent[i]
