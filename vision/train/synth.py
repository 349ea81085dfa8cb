"""Drawn dice: extra training crops for the classifier, made from nothing but numbers.

The labelled photos hold a few hundred dice of a few dozen kinds; the dice a
table will meet come in any colour, marbling, pip colour and pip size. This
draws a die crop the way the reader cuts one (the die about ``1 / CROP_K`` of
the crop, any rotation, a little perspective), on a background cut from the
tuning photos themselves (away from their dice) or a plain one, with
neighbouring dice at the crop's edge, a shadow, a highlight, a side face
showing now and then, and the low resolution of a small die in a real frame.

``paste_neighbour`` works on real crops instead: it sets another real die
against the crop's die, as dice lie touching in a tray.

Nothing is downloaded: the only inputs are the tuning photos and a seed.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.classify import CROP_K, CROP_SIDE

HI = 160  # drawing resolution of the whole crop
# Canonical pip places on a face of side 2 (centre 0), for values 1-6.
PIPS: dict[int, list[tuple[float, float]]] = {
    1: [(0, 0)],
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, 1), (1, -1), (-1, 1)],
    5: [(-1, -1), (1, 1), (1, -1), (-1, 1), (0, 0)],
    6: [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)],
}


def _hsv_colour(rng: np.random.Generator) -> np.ndarray:
    """A die colour: any hue; sometimes white, ivory, black or grey."""
    u = rng.random()
    if u < 0.2:  # white / ivory
        c = np.array([rng.uniform(200, 255), rng.uniform(215, 255), rng.uniform(225, 255)])
    elif u < 0.35:  # black / dark grey
        v = rng.uniform(10, 70)
        c = np.array([v, v, v]) + rng.uniform(-8, 8, 3)
    else:
        hsv = np.uint8([[[rng.integers(0, 180), rng.integers(80, 256), rng.integers(60, 256)]]])
        c = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0].astype(np.float64)
    return np.clip(c, 0, 255)


def _luma(c: np.ndarray) -> float:
    return float(0.114 * c[0] + 0.587 * c[1] + 0.299 * c[2])


def _pip_colour(rng: np.random.Generator, body: np.ndarray) -> np.ndarray:
    """A pip colour with enough luminance contrast to the body (as real dice have)."""
    for _ in range(30):
        u = rng.random()
        if u < 0.4:
            c = np.full(3, rng.uniform(0, 50))
        elif u < 0.75:
            c = np.full(3, rng.uniform(200, 255))
        else:
            c = _hsv_colour(rng)
        if abs(_luma(c) - _luma(body)) > 45:
            return c
    return np.full(3, 255.0) if _luma(body) < 128 else np.zeros(3)


def _noise_field(rng: np.random.Generator, side: int, cells: int) -> np.ndarray:
    """Smooth noise in [0, 1]: random values on a coarse grid, enlarged."""
    g = rng.random((cells, cells)).astype(np.float32)
    f = cv2.resize(g, (side, side), interpolation=cv2.INTER_CUBIC)
    f -= f.min()
    return f / max(1e-6, float(f.max()))


def _pip_mask(
    rng: np.random.Generator,
    value: int,
    side: int,
    spacing: float,
    rad: float,
    wobble: float,
    oval: tuple[float, float] | None = None,
) -> np.ndarray:
    """Pips of ``value`` in their canonical places, ``spacing`` apart, each moved by up to
    about ``wobble`` of the side: round discs, or ``oval`` = (stretch, angle) ellipses."""
    c0 = side / 2.0
    mask = np.zeros((side, side), np.float32)
    for px, py in PIPS[value]:
        x = c0 + px * spacing + rng.normal(0, wobble * side)
        y = c0 + py * spacing + rng.normal(0, wobble * side)
        centre = (int(round(x * 4)), int(round(y * 4)))  # drawn with 2 bits of subpixel
        if oval is None:
            cv2.circle(mask, centre, int(round(rad * 4)), 1.0, -1, cv2.LINE_AA, 2)
        else:
            axes = (int(round(rad * 4 * oval[0])), int(round(rad * 4)))
            cv2.ellipse(mask, centre, axes, oval[1], 0, 360, 1.0, -1, cv2.LINE_AA, 2)
    return np.clip(mask, 0, 1)


def _face(
    rng: np.random.Generator, value: int, side: int, smoky: float = 0.0
) -> tuple[np.ndarray, np.ndarray]:
    """A die seen from above, drawn square in its own frame: (BGR float image, alpha mask).
    A share ``smoky`` of them are translucent smoky dice (``_smoky_face``)."""
    if smoky > 0 and rng.random() < smoky:
        return _smoky_face(rng, value, side)
    body = _hsv_colour(rng)
    img = np.empty((side, side, 3), np.float32)
    img[:] = body
    if rng.random() < 0.35:  # marbled: a second colour swirled in
        other = _hsv_colour(rng) if rng.random() < 0.7 else body * rng.uniform(0.3, 0.7)
        f = _noise_field(rng, side, int(rng.integers(3, 8)))
        if rng.random() < 0.5:  # veins: a thin band of the noise's levels
            m = np.clip(1 - np.abs(f - rng.uniform(0.3, 0.7)) / rng.uniform(0.04, 0.12), 0, 1)
        else:  # clouds
            m = np.clip((f - rng.uniform(0.3, 0.6)) * rng.uniform(3, 8), 0, 1)
        m = (m * rng.uniform(0.5, 1.0))[..., None]
        img = img * (1 - m) + other.astype(np.float32) * m
    # Light falls from one side: a gentle gradient, darker rounded edges.
    ang = rng.uniform(0, 2 * math.pi)
    yy, xx = np.mgrid[0:side, 0:side].astype(np.float32) / side - 0.5
    grad = 1.0 + rng.uniform(0, 0.35) * (xx * math.cos(ang) + yy * math.sin(ang))
    img *= grad[..., None]
    mask = _rounded_mask(side, rng.uniform(0.08, 0.22) * side)
    edge = cv2.GaussianBlur(mask, (0, 0), side * rng.uniform(0.02, 0.06)).astype(np.float32) / 255
    lo = rng.uniform(0.55, 0.85)  # how dark the rounded rim gets
    img *= (lo + (1 - lo) * edge)[..., None]
    # Pips: canonical places, a spacing and radius of the die's own, a little wobble.
    pip = _pip_colour(rng, body)
    spacing = rng.uniform(0.24, 0.31) * side
    rad = rng.uniform(0.065, 0.11) * side
    if value == 1 and rng.random() < 0.4:
        rad *= rng.uniform(1.2, 1.8)  # many dice have a big single pip
    pipmask = _pip_mask(rng, value, side, spacing, rad, 0.01)[..., None]
    # A pip is a dip: darker on the lit side, a soft rim.
    shade = rng.uniform(0.8, 1.0)
    img = img * (1 - pipmask) + (pip.astype(np.float32) * shade) * pipmask
    return img, mask.astype(np.float32) / 255


def _rounded_mask(side: int, r: float) -> np.ndarray:
    """A filled rounded square of corner radius ``r``, uint8 0/255."""
    mask = np.zeros((side, side), np.uint8)
    ri = int(r)
    cv2.rectangle(mask, (ri, 0), (side - 1 - ri, side - 1), 255, -1)
    cv2.rectangle(mask, (0, ri), (side - 1, side - 1 - ri), 255, -1)
    for cx, cy in (
        (ri, ri),
        (side - 1 - ri, ri),
        (ri, side - 1 - ri),
        (side - 1 - ri, side - 1 - ri),
    ):
        cv2.circle(mask, (cx, cy), ri, 255, -1, cv2.LINE_AA)
    return mask


def _smoky_face(rng: np.random.Generator, value: int, side: int) -> tuple[np.ndarray, np.ndarray]:
    """A translucent, smoky die (dark glass with coloured pips), the kind a crop network
    finds hardest: the tray shows through the body, the bevelled rim catches the light,
    and the pips, painted inside, glow soft-edged in red, orange, green, blue or white,
    with little luminance contrast to the body."""
    v = rng.uniform(20, 85)
    body = np.array([v, v, v]) * rng.uniform(0.85, 1.15, 3)
    img = np.empty((side, side, 3), np.float32)
    img[:] = body
    f = _noise_field(rng, side, int(rng.integers(2, 6)))  # uneven thickness of the glass
    img *= (0.8 + 0.4 * f)[..., None]
    r = rng.uniform(0.1, 0.25) * side
    mask = _rounded_mask(side, r)
    # The rim: a lighter band just inside the outline (a darker one now and then).
    width = max(1, int(rng.uniform(0.04, 0.12) * side))
    inner = cv2.erode(  # outside the image counts as outside the die
        mask,
        np.ones((2 * width + 1, 2 * width + 1), np.uint8),
        borderType=cv2.BORDER_CONSTANT,
        borderValue=0,
    )
    rim = cv2.GaussianBlur(
        (mask.astype(np.float32) - inner.astype(np.float32)) / 255, (0, 0), 0.3 * width + 0.5
    )
    lift = rng.uniform(40, 130) if rng.random() < 0.8 else -rng.uniform(10, 30)
    img += (rim * lift)[..., None]
    hues = ((0, 0, 230), (0, 110, 255), (60, 200, 60), (230, 120, 40), (230, 230, 230))
    pip = np.array(hues[int(rng.choice(len(hues), p=[0.45, 0.15, 0.1, 0.1, 0.2]))], np.float64)
    pip = pip * rng.uniform(0.6, 1.0)
    spacing = rng.uniform(0.24, 0.31) * side
    rad = rng.uniform(0.07, 0.12) * side
    if value == 1 and rng.random() < 0.4:
        rad *= rng.uniform(1.2, 1.8)
    stretch = rng.uniform(1.0, 1.3)  # pips seen through the glass at a slant
    ang = rng.uniform(0, 180)
    pipmask = _pip_mask(rng, value, side, spacing, rad, 0.015, (stretch, ang))
    pipmask = cv2.GaussianBlur(pipmask, (0, 0), rad * rng.uniform(0.15, 0.5))
    pipmask = (np.clip(pipmask, 0, 1) * rng.uniform(0.75, 1.0))[..., None]
    img = img * (1 - pipmask) + pip.astype(np.float32) * pipmask
    # The tray shows through: the face is pasted with less than full cover.
    alpha = mask.astype(np.float32) / 255 * rng.uniform(0.7, 0.95)
    return img, alpha


def _paste(
    canvas: np.ndarray,
    img: np.ndarray,
    alpha: np.ndarray,
    centre: tuple[float, float],
    angle: float,
    persp: float,
    rng: np.random.Generator,
    shadow: bool,
) -> None:
    """Place a face on the canvas, rotated about its centre, with a little perspective."""
    side = img.shape[0]
    h, w = canvas.shape[:2]
    src = np.float32([[0, 0], [side, 0], [side, side], [0, side]])
    c = math.cos(math.radians(angle))
    s = math.sin(math.radians(angle))
    half = side / 2.0
    dst = []
    for x, y in src:
        dx, dy = x - half, y - half
        dx *= 1 + rng.uniform(-persp, persp)
        dy *= 1 + rng.uniform(-persp, persp)
        dst.append([centre[0] + c * dx - s * dy, centre[1] + s * dx + c * dy])
    m = cv2.getPerspectiveTransform(src, np.float32(dst))
    warped = cv2.warpPerspective(img, m, (w, h), flags=cv2.INTER_LINEAR)
    a = cv2.warpPerspective(alpha, m, (w, h), flags=cv2.INTER_LINEAR)[..., None]
    if shadow:
        off = rng.normal(0, 0.06 * side, 2)
        sm = np.float32([[1, 0, off[0]], [0, 1, off[1]]])
        sh = cv2.warpAffine(a[..., 0], sm, (w, h))
        sh = cv2.GaussianBlur(sh, (0, 0), 0.05 * side + 1)[..., None]
        canvas *= 1 - rng.uniform(0.2, 0.5) * sh
    canvas *= 1 - a
    canvas += warped * a


def _background(rng: np.random.Generator, photos: list[np.ndarray], side: int) -> np.ndarray:
    if photos and rng.random() < 0.75:
        p = photos[int(rng.integers(len(photos)))]
        h, w = p.shape[:2]
        cut = int(rng.integers(max(8, min(h, w) // 12), max(9, min(h, w) // 3)))
        y = int(rng.integers(0, h - cut + 1))
        x = int(rng.integers(0, w - cut + 1))
        bg = cv2.resize(p[y : y + cut, x : x + cut], (side, side), interpolation=cv2.INTER_LINEAR)
        return bg.astype(np.float32)
    bg = np.empty((side, side, 3), np.float32)
    bg[:] = rng.uniform(0, 255, 3)
    bg *= (0.85 + 0.3 * _noise_field(rng, side, 4))[..., None]
    return bg


def draw(
    rng: np.random.Generator, backgrounds: list[np.ndarray], value: int, smoky: float = 0.0
) -> np.ndarray:
    """One ``CROP_SIDE`` crop of a drawn die showing ``value``, as the reader would cut it;
    a share ``smoky`` of the dice drawn (neighbours too) are smoky ones."""
    die = HI / CROP_K * math.exp(rng.normal(0, 0.1))
    canvas = _background(rng, backgrounds, HI)
    centre = (HI / 2 + rng.normal(0, 0.05 * die), HI / 2 + rng.normal(0, 0.05 * die))
    # Neighbours first (other dice close by, partly in the crop).
    for _ in range(int(rng.choice([0, 0, 1, 1, 2, 3]))):
        ang = rng.uniform(0, 2 * math.pi)
        d = die * rng.uniform(1.0, 1.5)
        nb_side = int(die * math.exp(rng.normal(0, 0.1)))
        img, a = _face(rng, int(rng.integers(1, 7)), max(8, nb_side), smoky)
        _paste(
            canvas,
            img,
            a,
            (centre[0] + d * math.cos(ang), centre[1] + d * math.sin(ang)),
            rng.uniform(0, 360),
            0.05,
            rng,
            rng.random() < 0.5,
        )
    side_px = max(8, int(round(die)))
    img, a = _face(rng, value, side_px, smoky)
    persp = 0.03 if rng.random() < 0.7 else 0.1
    _paste(canvas, img, a, centre, rng.uniform(0, 360), persp, rng, rng.random() < 0.6)
    if rng.random() < 0.3:  # a specular highlight
        hl = np.zeros((HI, HI), np.float32)
        cv2.circle(
            hl,
            (int(centre[0] + rng.normal(0, 0.3 * die)), int(centre[1] + rng.normal(0, 0.3 * die))),
            int(die * rng.uniform(0.05, 0.2)),
            1.0,
            -1,
        )
        hl = cv2.GaussianBlur(hl, (0, 0), die * 0.05 + 1)[..., None]
        canvas = canvas * (1 - 0.6 * hl) + 255 * 0.6 * hl
    canvas = np.clip(canvas, 0, 255).astype(np.uint8)
    # The die's size in the real frame: 18-70 px, so the crop is that many pixels before
    # the reader enlarges or shrinks it to CROP_SIDE.
    native = int(round(CROP_K * rng.uniform(18, 70)))
    small = cv2.resize(canvas, (native, native), interpolation=cv2.INTER_AREA)
    if rng.random() < 0.5:
        q = int(rng.integers(40, 95))
        ok, enc = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, q])
        if ok:
            small = cv2.imdecode(enc, cv2.IMREAD_COLOR)
    interp = cv2.INTER_AREA if native > CROP_SIDE else cv2.INTER_LINEAR
    return np.asarray(cv2.resize(small, (CROP_SIDE, CROP_SIDE), interpolation=interp), np.uint8)


def dice_free_backgrounds(
    images: list[np.ndarray], centers: list[np.ndarray], sizes: list[np.ndarray]
) -> list[np.ndarray]:
    """The photos with their dice painted over by the surrounding colour (inpainted)."""
    out = []
    for img, cs, ss in zip(images, centers, sizes, strict=True):
        mask = np.zeros(img.shape[:2], np.uint8)
        for (x, y), s in zip(cs, ss, strict=True):
            cv2.circle(mask, (int(x), int(y)), int(0.9 * s), 255, -1)
        small = cv2.resize(
            img, (img.shape[1] // 2, img.shape[0] // 2), interpolation=cv2.INTER_AREA
        )
        m2 = cv2.resize(mask, (small.shape[1], small.shape[0]), interpolation=cv2.INTER_NEAREST)
        out.append(cv2.inpaint(small, m2, 3, cv2.INPAINT_TELEA))
    return out


def paste_neighbour(rng: np.random.Generator, c: np.ndarray, other: np.ndarray) -> np.ndarray:
    """The crop ``c`` with the die in the middle of ``other`` (another crop) set against its
    die on a random side, touching or a little apart, as dice lie in a tray. Pixels within
    0.55 die sides of the centre (the face and its pips) are kept."""
    side = CROP_SIDE / CROP_K
    mid = CROP_SIDE / 2.0
    a, b = int(round(mid - side / 2)), int(round(mid + side / 2))
    patch = other[a:b, a:b]
    ang = rng.uniform(0, 2 * math.pi)
    reach = side * rng.uniform(0.95, 1.25) / max(abs(math.cos(ang)), abs(math.sin(ang)))
    x0 = int(round(mid + reach * math.cos(ang) - patch.shape[1] / 2))
    y0 = int(round(mid + reach * math.sin(ang) - patch.shape[0] / 2))
    out = c.copy()
    cx0, cy0 = max(0, x0), max(0, y0)
    cx1, cy1 = min(CROP_SIDE, x0 + patch.shape[1]), min(CROP_SIDE, y0 + patch.shape[0])
    if cx1 <= cx0 or cy1 <= cy0:
        return out
    yy, xx = np.mgrid[cy0:cy1, cx0:cx1]
    free = np.hypot(xx + 0.5 - mid, yy + 0.5 - mid) > 0.55 * side
    region = out[cy0:cy1, cx0:cx1]
    region[free] = patch[cy0 - y0 : cy1 - y0, cx0 - x0 : cx1 - x0][free]
    return out


def cover(
    rng: np.random.Generator, img: np.ndarray, cx: float, cy: float, size: float
) -> tuple[np.ndarray, float, float, float]:
    """``img`` with something laid over part of the die of side ``size`` at (cx, cy): a
    cable, a phone, a sleeve, reaching in from a random direction over part of its pips
    (from the outer pips on one side to a little over half the die) and on past it.
    Returns the painted copy and the centre and side of the part of the die left in view
    (along the covering's direction), which is what the locator finds of such a die.

    The reader must not read such a die: the part in view can show a whole smaller
    face (a 6 with a row of pips hidden looks like a 4 or a 3)."""
    h, w = img.shape[:2]
    ang = rng.uniform(0, 2 * math.pi)
    nx, ny = math.cos(ang), math.sin(ang)
    reach = 0.5 * size  # the die's extent either side of its centre along (nx, ny)
    # The covering's edge, from the die's centre; it runs on past the die. Pips lie about
    # 0.27 of a side from the centre, and ``size`` (a label box's side) is at least the
    # die's, so an edge within 0.12 of it covers at least the outer pips on that side.
    edge = size * float(rng.uniform(-0.15, 0.12))
    yy, xx = np.mgrid[0:h, 0:w]
    dist = (xx + 0.5 - cx) * nx + (yy + 0.5 - cy) * ny - edge
    alpha = np.clip(0.5 + dist / float(rng.uniform(0.3, 1.5)), 0.0, 1.0)[..., None]
    u = rng.random()
    if u < 0.5:  # dark: a cable, a phone
        colour = rng.uniform(0, 70, 3)
    elif u < 0.8:  # anything
        colour = rng.uniform(0, 255, 3)
    else:  # a hand or a sleeve in the light (BGR)
        colour = np.array([rng.uniform(60, 170), rng.uniform(90, 190), rng.uniform(140, 235)])
    layer = np.clip(colour + rng.normal(0, rng.uniform(1, 8), img.shape), 0, 255)
    out = np.asarray(img * (1.0 - alpha) + layer * alpha, np.uint8)
    mid = 0.5 * (edge - reach)  # the middle of the part in view, [-reach, edge]
    return out, cx + mid * nx, cy + mid * ny, edge + reach
