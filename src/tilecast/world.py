"""What every query takes: a rectangle of cells placed in the world.

:class:`World` is the base of :class:`~tilecast.Grid` (one solidity bit per
cell) and :class:`~tilecast.TileMap` (a tile with a pixel mask per cell). It
holds what the two share: the cell layout (``shape``, ``tile_size``,
``origin``), what lies beyond the map (``outside``), the edit counter
(``version``), the world <-> tile space mapping, and the cell-level solidity
that cell queries (field of view, ``is_solid``) read.

Every query maps a world point ``(x, y)`` to *tile space* with exactly two
float64 operations per coordinate, ``u = (x - ox) / w`` and ``v = (y - oy) / h``;
cell ``(i, j)`` is then the half-open unit box ``[i, i+1) x [j, j+1)`` and every
decision about cells is made exactly on those doubles.

What each kind of query reads
-----------------------------
========================================  ==========================  ==========================
query                                     on a ``Grid``               on a ``TileMap``
========================================  ==========================  ==========================
``raycast``, ``raycast_all``,             solid cells                 solid *pixels* (as on
``line_of_sight``, ``raycast_many``,                                  ``to_pixel_grid()``)
``scan``, ``scan_many``
``wall_segments`` (and so                 outlines of solid cells     outlines of solid pixels
``visibility_polygon`` on its walls)
``fov``, ``fov_many``, ``is_solid``       solid cells                 cells whose tile has a
                                                                      solid pixel (``solid``)
``traverse``, ``tiles_in_rect``,          cells (tiles)               cells (tiles)
``tiles_in_circle``
========================================  ==========================  ==========================
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import numpy as np

from tilecast._validate import as_cell, as_mask, as_point, tile_coordinates
from tilecast._walkspec import ALL_LAYERS

__all__ = ["ALL_LAYERS", "OUTSIDE_POLICIES", "World"]

OUTSIDE_POLICIES = ("empty", "solid")
# How many masked views (World.masked) a map keeps; the oldest goes first.
_MASKED_KEPT = 8

_T = TypeVar("_T")


def readonly_view(array: np.ndarray) -> np.ndarray:
    """Return a read-only view of ``array`` (the array itself stays writeable for its owner)."""
    view: np.ndarray = array.view()
    view.flags.writeable = False
    return view


class Placed:
    """What every map shares: its cells' place in the world, and the edit protocol.

    The base of :class:`World` (a ``Grid`` or a ``TileMap``) and of
    :class:`~tilecast.GridStack`: the geometry properties, and the sequence
    lock that lets a compiled query read the cells while another thread edits
    them (:meth:`consistent`). A subclass sets the attributes annotated here.

    Examples
    --------
    >>> from tilecast import Grid, GridStack
    >>> from tilecast.world import Placed
    >>> isinstance(Grid([[0]]), Placed), isinstance(GridStack([[[0]]]), Placed)
    (True, True)
    """

    __slots__ = ("_edit_lock", "_edit_seq", "_origin", "_outside", "_tile_size", "_version")

    _tile_size: tuple[float, float]
    _origin: tuple[float, float]
    _outside: str
    _version: int
    # Edits are serialised by _edit_lock; _edit_seq is odd while one runs (a
    # sequence lock: a query that saw the same even value before and after it
    # ran saw no edit; see _stable_seq).
    _edit_lock: threading.RLock
    _edit_seq: int

    @property
    def tile_size(self) -> tuple[float, float]:
        """Cell ``(width, height)`` in world units (on a stack, every map's)."""
        return self._tile_size

    @property
    def origin(self) -> tuple[float, float]:
        """World position of the corner of cell (0, 0) (top-left when y points down)."""
        return self._origin

    @property
    def outside(self) -> str:
        """``"empty"`` or ``"solid"``: what lies beyond the map (every map of a stack)."""
        return self._outside

    @property
    def version(self) -> int:
        """Counter bumped by every edit; cached data compares it."""
        return self._version

    # ------------------------------------------------------------------ edits
    @contextmanager
    def _editing(self) -> Iterator[None]:
        """Hold the edit lock, with the sequence odd, for the length of one edit."""
        with self._edit_lock:
            self._edit_seq += 1
            try:
                yield
            finally:
                self._edit_seq += 1

    def _stable_seq(self) -> int:
        """Return the edit sequence number once no edit runs (waiting for one that does)."""
        seq = self._edit_seq
        while seq & 1:
            with self._edit_lock:
                pass
            seq = self._edit_seq
        return seq

    def consistent(self, query: Callable[[], _T]) -> _T:
        """Run ``query`` so that it sees one state of the map, edits from other threads or not.

        For code that reads the map's arrays without the GIL (compiled
        kernels). First optimistically, edits going on; if one ran meanwhile,
        once more holding the edit lock, so that a steady stream of edits
        cannot starve the query. Returns what ``query`` returns.

        Examples
        --------
        >>> from tilecast import Grid
        >>> grid = Grid([[0, 1]])
        >>> grid.consistent(lambda: int(grid.solid.sum()))
        1
        """
        seq = self._stable_seq()
        result = query()
        if self._edit_seq == seq:
            return result
        with self._edit_lock:
            return query()


class World(Placed):
    """Base of :class:`~tilecast.Grid` and :class:`~tilecast.TileMap`: cells placed in the world.

    Not built directly; every query that takes a ``Grid`` takes a ``TileMap``
    (see the module docstring for what each query reads on one) and a 2D
    bool array (a ``Grid`` with unit tiles at the origin).

    Examples
    --------
    >>> from tilecast import Grid, World
    >>> grid = Grid([[0, 1], [0, 0]], tile_size=(2.0, 1.0), origin=(-1.0, 0.0))
    >>> isinstance(grid, World)
    True
    >>> grid.cell_at((1.5, 0.25)), grid.cell_bounds((1, 0))
    ((1, 0), (1.0, 0.0, 3.0, 1.0))
    """

    __slots__ = ("_accel", "_frozen", "source")

    # Acceleration data derived from the map (clearance maps, the batch
    # kernel's tile info), keyed by name. A value may define
    # ``update(world, cells)`` to follow an edit in place; values without it
    # are dropped by the edit and rebuilt on next use.
    _accel: dict[Hashable, Any]
    #: Where the map came from, set by the loaders: for a Tiled map
    #: ``{"file", "layers", "rule", "solid"}`` (which layers hold the walls and
    #: why), for a ROS map ``{"file", "image", "yaw"}``; None for a map made
    #: in code. Callers may set it too.
    source: dict[str, Any] | None

    def _init_world(
        self, tile_size: tuple[float, float], origin: tuple[float, float], outside: str
    ) -> None:
        """Set the shared state (called by the subclasses' constructors, arguments checked)."""
        self._tile_size = tile_size
        self._origin = origin
        self._outside = outside
        self._version = 0
        self._accel = {}
        self._edit_lock = threading.RLock()
        self._edit_seq = 0
        self._frozen = False
        self.source = None

    # Pickling and copying: the lock and the derived data are not state;
    # arrays kept read-only stay read-only (pickle would make them writeable).
    def __getstate__(self) -> dict[str, Any]:
        state: dict[str, Any] = {}
        readonly = []
        for cls in type(self).__mro__:
            for name in getattr(cls, "__slots__", ()):
                if name not in ("_accel", "_edit_lock", "_edit_seq", "_frozen"):
                    value = getattr(self, name)
                    state[name] = value
                    if isinstance(value, np.ndarray) and not value.flags.writeable:
                        readonly.append(name)
        state["_readonly_arrays"] = readonly
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        state = dict(state)
        readonly = state.pop("_readonly_arrays", ())
        for name, value in state.items():
            if name in readonly:
                value.flags.writeable = False
            object.__setattr__(self, name, value)
        self._accel = {}
        self._edit_lock = threading.RLock()
        self._edit_seq = 0
        self._frozen = False  # a copy of a masked view is a map of its own

    # ------------------------------------------------------------ subclasses
    @property
    def shape(self) -> tuple[int, int]:
        """``(rows, cols)`` of the map, in cells."""
        raise NotImplementedError

    @property
    def solid(self) -> np.ndarray:
        """Read-only bool ``(rows, cols)``: True where a cell holds something solid."""
        raise NotImplementedError

    # ----------------------------------------------------------------- basics
    @property
    def rows(self) -> int:
        """Number of rows (cells along y)."""
        return self.shape[0]

    @property
    def cols(self) -> int:
        """Number of columns (cells along x)."""
        return self.shape[1]

    # --------------------------------------------------------------- geometry
    def to_tile_space(self, point: Any) -> tuple[float, float]:
        """Map a world point to tile space: ``((x - ox) / w, (y - oy) / h)``.

        Examples
        --------
        >>> from tilecast import Grid
        >>> Grid([[0]], tile_size=(2.0, 4.0), origin=(1.0, 1.0)).to_tile_space((5.0, -3.0))
        (2.0, -1.0)
        """
        return tile_coordinates("point", as_point("point", point), self._origin, self._tile_size)

    def cell_at(self, point: Any) -> tuple[int, int]:
        """Return the cell ``(i, j)`` containing a world point (floor in tile space).

        Exact for negative coordinates: the point on a grid line belongs to the
        cell on its positive side.

        Examples
        --------
        >>> from tilecast import Grid
        >>> grid = Grid([[0]])
        >>> grid.cell_at((-0.5, 2.0))
        (-1, 2)
        >>> Grid([[0]], tile_size=0.1).cell_at((0.3, 0.0))  # 0.3 / 0.1 < 3 in doubles
        (2, 0)
        """
        u, v = self.to_tile_space(point)
        return (math.floor(u), math.floor(v))

    def cell_bounds(self, cell: Any) -> tuple[float, float, float, float]:
        """World box ``(x0, y0, x1, y1)`` of a cell, ``ox + i*w`` etc. in float64.

        Examples
        --------
        >>> from tilecast import Grid
        >>> Grid([[0]], tile_size=(2.0, 3.0), origin=(10.0, 0.0)).cell_bounds((-1, 2))
        (8.0, 6.0, 10.0, 9.0)
        """
        i, j = as_cell("cell", cell)
        ox, oy = self._origin
        w, h = self._tile_size
        return (ox + i * w, oy + j * h, ox + (i + 1) * w, oy + (j + 1) * h)

    def in_bounds(self, cell: Any) -> bool:
        """Return True when the cell lies on the map.

        Examples
        --------
        >>> from tilecast import Grid
        >>> Grid([[0, 0]]).in_bounds((1, 0)), Grid([[0, 0]]).in_bounds((2, 0))
        (True, False)
        """
        i, j = as_cell("cell", cell)
        rows, cols = self.shape
        return 0 <= i < cols and 0 <= j < rows

    def is_solid(self, cell: Any) -> bool:
        """Solidity of a cell (on a ``TileMap``: its tile has a solid pixel); beyond: ``outside``.

        Examples
        --------
        >>> from tilecast import Grid
        >>> grid = Grid([[1, 0]], outside="solid")
        >>> grid.is_solid((0, 0)), grid.is_solid((1, 0)), grid.is_solid((5, -3))
        (True, False, True)
        """
        i, j = as_cell("cell", cell)
        rows, cols = self.shape
        if 0 <= i < cols and 0 <= j < rows:
            return self._cell_solid(i, j)
        return self._outside == "solid"

    def _cell_solid(self, i: int, j: int) -> bool:
        return bool(self.solid[j, i])

    # ----------------------------------------------------------------- layers
    def masked(self, mask: int) -> World:
        """Return the map as queries with ``mask`` see it: what blocks is what ``mask`` selects.

        A cell (on a ``TileMap``, a tile's pixels) blocks a query with
        ``mask`` when its layer bits share a bit with ``mask``
        (``layers & mask != 0``); this is the map with every other cell
        emptied, of the same geometry and ``outside`` (beyond the map, a
        ``"solid"`` outside blocks for every mask). Every map query with
        ``mask=`` runs on this view, so it answers exactly what the query
        without a mask answers on it. The view and its acceleration data
        are built on first use and kept current by the map's edits (the
        last few masks used are kept); the view itself cannot be edited.
        For :data:`ALL_LAYERS`, and for a map whose cells are all on layer 1
        when ``mask`` includes bit 1, it is the map itself.

        Parameters
        ----------
        mask : int
            Layer bits, ``0 <= mask < 2**32``.

        Examples
        --------
        >>> from tilecast import Grid
        >>> grid = Grid([[1, 2, 3]])
        >>> grid.masked(2).solid.tolist()
        [[False, True, True]]
        >>> grid.set_layers((0, 0), 2)
        >>> grid.masked(2).solid.tolist()  # kept current
        [[True, True, True]]
        >>> grid.masked(0xFFFFFFFF) is grid
        True
        """
        if mask is ALL_LAYERS:
            return self
        mask = as_mask(mask)
        if mask == ALL_LAYERS or self._unfiltered_by(mask):
            return self
        key = ("masked", mask)
        view = self._accel.get(key)
        if view is None:
            with self._edit_lock:
                masked = [k for k in self._accel if isinstance(k, tuple) and k[0] == "masked"]
                for old in masked[: max(0, len(masked) - _MASKED_KEPT + 1)]:
                    if old != key:
                        del self._accel[old]
                view = self.accelerator(key, _MaskedView.of(mask))
        world: World = view.world
        return world

    def _unfiltered_by(self, mask: int) -> bool:
        """Return True when ``mask`` keeps every solid cell (the map itself is the view)."""
        return False

    def _filtered(self, mask: int) -> World:
        """Build the masked view (subclasses): a frozen map of the same geometry."""
        raise NotImplementedError

    def _refilter(self, view: World, mask: int, cells: np.ndarray) -> None:
        """Bring the masked view up to date after an edit of ``cells`` (subclasses)."""
        raise NotImplementedError

    def _check_editable(self) -> None:
        if self._frozen:
            raise ValueError(
                "this map is a masked view of another map (World.masked): edit that map instead"
            )

    def accelerator(self, key: Hashable, build: Callable[[World], _T]) -> _T:
        """Return data derived from the map, built by ``build(self)`` on first use and kept.

        ``key`` names the data and everything it depends on besides the map
        (a name, or a tuple such as ``("clearance", cap)``). An edit keeps
        it current: a value with a method ``update(world, cells)`` follows
        the edit in place (called with the edit lock held and the changed
        cells), any other value is dropped and rebuilt on next use. Built
        with no edit in progress. Not copied with the map, nor pickled.

        Examples
        --------
        >>> from tilecast import Grid
        >>> grid = Grid([[0, 1]])
        >>> grid.accelerator("walls", lambda g: int(g.solid.sum()))
        1
        >>> grid.set_solid((0, 0), True)
        >>> grid.accelerator("walls", lambda g: int(g.solid.sum()))  # rebuilt after the edit
        2
        """
        data = self._accel.get(key)
        if data is None:
            with self._edit_lock:
                data = self._accel.get(key)
                if data is None:
                    data = build(self)
                    self._accel[key] = data
        return data

    def snapshot(self, key: Hashable, build: Callable[[World], _T]) -> _T:
        """Return data made from one state of the map, rebuilt on first use after each edit.

        Like :meth:`accelerator`, but the value is never updated in place:
        it is remade (``build(self)``, with no edit in progress) once the
        map's :attr:`version` has moved. For views that gather several
        arrays of one state of the map.

        Examples
        --------
        >>> from tilecast import Grid
        >>> grid = Grid([[0, 0]])
        >>> grid.snapshot("version seen", lambda g: g.version)
        0
        >>> grid.set_solid((0, 0), True)
        >>> grid.snapshot("version seen", lambda g: g.version)
        1
        """
        cached = self._accel.get(key)
        if cached is not None and cached[0] == self._version and not self._edit_seq & 1:
            return cached[1]  # type: ignore[no-any-return]
        with self._edit_lock:
            value = build(self)
            # a (version, value) pair with no update(): dropped by the next edit
            self._accel[key] = (self._version, value)
            return value

    def _check_on_map(self, cells: np.ndarray) -> None:
        """Raise ``ValueError`` naming ``cells`` when one of them lies off the map."""
        rows, cols = self.shape
        i, j = cells[:, 0], cells[:, 1]
        off_map = (i < 0) | (i >= cols) | (j < 0) | (j >= rows)
        if off_map.any():
            bad = cells[np.argmax(off_map)]
            raise ValueError(f"cells must lie on the {rows}x{cols} map, got cell {tuple(bad)}")

    def _edited(self, cells: np.ndarray) -> None:
        """Bump :attr:`version` and bring the acceleration data up to date (inside _editing)."""
        self._version += 1
        for key, data in list(self._accel.items()):
            update = getattr(data, "update", None)
            if update is None:
                del self._accel[key]
            else:
                update(self, cells)


class _MaskedView:
    """A map's masked view (:meth:`World.masked`), kept current by the map's edits."""

    __slots__ = ("mask", "world")

    def __init__(self, parent: World, mask: int) -> None:
        self.mask = mask
        self.world = parent._filtered(mask)
        self.world._frozen = True

    @staticmethod
    def of(mask: int) -> Callable[[World], _MaskedView]:
        return lambda parent: _MaskedView(parent, mask)

    def update(self, parent: World, cells: np.ndarray) -> None:
        parent._refilter(self.world, self.mask, cells)
