"""The MovieLens-100K / MF rows of Tables 4.2, 4.5, 5.2 and 6.3 of Liu Bin's thesis, as printed.

Keys: ``(table, method, setting)``; values: ``{(metric, k): value}`` with metric in
``precision, recall, ndcg`` and k in 5, 10, 20. Transcribed from the thesis's tables; the
reproduction compares against these numbers and never trains on them.
"""

from __future__ import annotations

__all__ = ["THESIS", "thesis_value"]


def _row(*vals):
    keys = [(m, k) for k in (5, 10, 20) for m in ("precision", "recall", "ndcg")]
    return dict(zip(keys, vals))


THESIS = {
    # Table 4.2: samplers with BPR-MF (SGD), MovieLens-100K
    ("4.2", "RNS", "BPR-MF SGD"): _row(0.3900, 0.1301, 0.4143, 0.3363, 0.2164, 0.3967, 0.2724, 0.3298, 0.3962),
    ("4.2", "PNS", "BPR-MF SGD"): _row(0.2647, 0.0864, 0.2694, 0.2329, 0.1475, 0.2637, 0.1949, 0.2374, 0.2709),
    ("4.2", "AOBPR", "BPR-MF SGD"): _row(0.3970, 0.1375, 0.4186, 0.3308, 0.2165, 0.3942, 0.2700, 0.3369, 0.3980),
    ("4.2", "DNS", "BPR-MF SGD"): _row(0.4053, 0.1414, 0.4314, 0.3348, 0.2214, 0.4042, 0.2734, 0.3413, 0.4069),
    ("4.2", "SRNS", "BPR-MF SGD"): _row(0.3951, 0.1342, 0.4176, 0.3394, 0.2174, 0.3998, 0.2747, 0.3374, 0.4013),
    ("4.2", "BNS", "BPR-MF SGD"): _row(0.4205, 0.1467, 0.4558, 0.3463, 0.2290, 0.4217, 0.2762, 0.3466, 0.4176),
    # Table 4.5: BNS with the oracle prior (label - 0.2)^2, lambda = 5, growing |M_u|
    ("4.5", "BNS-oracle", "|M_u|=1"): _row(0.3900, 0.1301, 0.4143, 0.3363, 0.2164, 0.3967, 0.2724, 0.3298, 0.3962),
    ("4.5", "BNS-oracle", "|M_u|=3"): _row(0.4909, 0.1567, 0.5211, 0.4220, 0.2565, 0.4942, 0.3366, 0.3872, 0.4856),
    ("4.5", "BNS-oracle", "|M_u|=5"): _row(0.5109, 0.1612, 0.5422, 0.4329, 0.2602, 0.5092, 0.3456, 0.3925, 0.4992),
    ("4.5", "BNS-oracle", "|M_u|=10"): _row(0.5351, 0.1696, 0.5685, 0.4589, 0.2722, 0.5365, 0.3663, 0.4081, 0.5245),
    ("4.5", "BNS-oracle", "|M_u|=20"): _row(0.5760, 0.1828, 0.6070, 0.4885, 0.2875, 0.5695, 0.3830, 0.4196, 0.5498),
    ("4.5", "BNS-oracle", "|M_u|=50"): _row(0.6239, 0.1989, 0.6599, 0.5252, 0.3049, 0.6146, 0.4031, 0.4312, 0.5843),
    ("4.5", "BNS-oracle", "|M_u|=100"): _row(0.6509, 0.2104, 0.6898, 0.5382, 0.3125, 0.6346, 0.4053, 0.4321, 0.5971),
    ("4.5", "BNS-oracle", "|M_u|=500"): _row(0.6661, 0.2183, 0.7128, 0.5412, 0.3131, 0.6487, 0.4041, 0.4300, 0.6076),
    ("4.5", "BNS-oracle", "|M_u|=all"): _row(0.6674, 0.2184, 0.7133, 0.5429, 0.3140, 0.6495, 0.4041, 0.4292, 0.6073),
    # Table 5.2: pairwise / softmax losses, MF (the BPR row repeats Table 4.2's RNS row)
    ("5.2", "BPR", "MF"): _row(0.3900, 0.1301, 0.4143, 0.3363, 0.2164, 0.3967, 0.2724, 0.3298, 0.3962),
    ("5.2", "InfoNCE", "MF"): _row(0.4081, 0.1388, 0.4324, 0.3452, 0.2266, 0.4095, 0.2793, 0.3497, 0.4118),
    ("5.2", "DCL", "MF"): _row(0.4168, 0.1434, 0.4458, 0.3513, 0.2291, 0.4202, 0.2835, 0.3546, 0.4207),
    ("5.2", "HCL", "MF"): _row(0.4263, 0.1463, 0.4539, 0.3565, 0.2323, 0.4260, 0.2849, 0.3564, 0.4242),
    ("5.2", "DPL", "MF"): _row(0.4348, 0.1523, 0.4643, 0.3635, 0.2379, 0.4356, 0.2914, 0.3588, 0.4338),
    # Table 6.3: contrastive losses, MF (InfoNCE, DCL, HCL repeat Table 5.2)
    ("6.3", "InfoNCE", "MF"): _row(0.4081, 0.1388, 0.4324, 0.3452, 0.2266, 0.4095, 0.2793, 0.3497, 0.4118),
    ("6.3", "DCL", "MF"): _row(0.4168, 0.1434, 0.4458, 0.3513, 0.2291, 0.4202, 0.2835, 0.3546, 0.4207),
    ("6.3", "HCL", "MF"): _row(0.4263, 0.1463, 0.4539, 0.3565, 0.2323, 0.4260, 0.2849, 0.3564, 0.4242),
    ("6.3", "BCL", "MF"): _row(0.4374, 0.1552, 0.4674, 0.3658, 0.2405, 0.4380, 0.2931, 0.3588, 0.4357),
}


def thesis_value(table, method, setting, metric, k):
    """The printed value, or NaN when the thesis has no such cell.

    Parameters
    ----------
    table : str
        The table number, ``"4.2"``, ``"4.5"``, ``"5.2"`` or ``"6.3"``.
    method : str
        The row's method as printed (e.g. ``"BNS"``, ``"BNS-oracle"``, ``"InfoNCE"``).
    setting : str
        The row's setting (``"BPR-MF SGD"`` for Table 4.2, ``"|M_u|=5"`` etc. for Table 4.5,
        ``"MF"`` for Tables 5.2 and 6.3).
    metric : {"precision", "recall", "ndcg"}
        The metric.
    k : int
        The list length, 5, 10 or 20.

    Returns
    -------
    float
        The thesis's value, or NaN for a cell not in :data:`THESIS`.

    Examples
    --------
    >>> from negtheory.reproduce.thesis_numbers import thesis_value
    >>> thesis_value("4.2", "BNS", "BPR-MF SGD", "ndcg", 20)
    0.4176
    >>> thesis_value("4.2", "SRNS", "MF", "ndcg", 20)
    nan
    """
    return THESIS.get((table, method, setting), {}).get((metric, int(k)), float("nan"))
