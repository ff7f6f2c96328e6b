"""The MF rows of Tables 4.2-4.5, 5.2, 5.3 and 6.3 of Liu Bin's thesis as printed, per data set, and the MovieLens-100K LightGCN rows.

:data:`THESIS` holds the MovieLens-100K rows (Tables 4.2-4.5, 5.2, 5.3, 6.3; MF, and LightGCN with
setting ``"LightGCN"`` in Tables 4.2, 5.2, 6.3); :data:`THESIS_BY_DATASET`
maps each data set name of :data:`DATASETS` (``ml-100k``, ``ml-1m``, ``yahoo-r3``, ``yelp2018``,
``gowalla``) to its rows, and :data:`TABLES_BY_DATASET` to the tables run on it (Table 4.5 exists for MovieLens-100K only; Table 5.3 prints MovieLens-100K and -1M, MF:
BPR, BNS, DPL — equal to Tables 4.2 / 5.2 — and ``DPL-hard``, "DPL with Hard Samples"). Keys: ``(table, method, setting)``; values:
``{(metric, k): value}`` with metric in ``precision, recall, ndcg`` and k in 5, 10, 20.
Transcribed from the thesis's tables; the reproduction compares against these numbers and never
trains on them.

Which block is which. Tables 4.2, 5.2 and 6.3 print one block per (data set, model), data set
first: MovieLens-100K MF, MovieLens-100K LightGCN, MovieLens-1M MF, MovieLens-1M LightGCN,
Yahoo!-R3 MF, Yahoo!-R3 LightGCN (then Yelp2018 and Gowalla in Tables 5.2 and 6.3). The text
layer of the thesis writes the merged data set labels beside the wrong blocks (e.g. "Yahoo" beside
the third block of Table 4.2); the blocks are identified by (i) Table 5.3, which prints the
MovieLens-1M MF rows BPR, BNS and DPL alone and equals the third block's RNS / BNS rows of Table 4.2
and its DPL row of Table 5.2, (ii) the model column of Table 6.3, which alternates MF / LightGCN,
and (iii) Table 4.1's test items per user (about 21 on MovieLens-100K, 33 on MovieLens-1M, 6.7 on
Yahoo!-R3), which the blocks' 5 x Precision@5 / Recall@5 follows (15, 22, 6.8). On MovieLens-1M
the BPR row of Table 5.2 repeats Table 4.2's RNS row (as on MovieLens-100K); on Yahoo!-R3 it does
not (the thesis prints other numbers), and the reproduction still runs BPR as RNS.

MovieLens-100K LightGCN is the *second* block of each table, labelled "1M MF" in Table 4.2,
"MovieLens-1M MF" in Table 5.2 and "MovieLens-1M LightGCN" in Table 6.3 by the text layer. Checks:
the model column of Table 6.3 says LightGCN; its Table 5.2 BPR row repeats its Table 4.2 RNS row
(0.4017 NDCG@10), as MovieLens-100K MF's does; its 5 x Precision@5 / Recall@5 is 16.0, beside
MovieLens-100K MF's 15.0 and far from MovieLens-1M's 22.5 (MF) and 21.5 (LightGCN, fourth block);
and it is a little above MovieLens-100K MF (NDCG@10 0.4017 vs 0.3967 for BPR), as §4.5.2.1 says
LightGCN generally is. The suspected erratum of issue 22 (the *second* block printed "100K MF", the
fifth block of Table 4.2, would be MovieLens-100K LightGCN mislabelled) does not hold: that block's
5 x Precision@5 / Recall@5 is 6.8, Yahoo!-R3's 6.7 test items per user of Table 4.1 (MovieLens-100K
has 21), its values (NDCG@10 0.14) are a third of MovieLens-100K's, and it sits where Yahoo!-R3 MF
belongs in the data-set-first order (it is :data:`THESIS_YAHOO`'s Table 4.2 block). Its label is
the mislabel, not its position.

Yelp2018 and Gowalla (Tables 5.2 and 6.3 only; :data:`THESIS_LARGE`, also in :data:`THESIS_BY_DATASET`;
``thesis-tables --dataset gowalla|yelp2018 --data DIR`` prepares their split with
:func:`negtheory.recsys.datasets.thesis_split`). They are the seventh to tenth
blocks: Yelp2018 MF, Yelp2018 LightGCN, Gowalla MF, Gowalla LightGCN in the data-set-first, MF-then-
LightGCN order that holds for the first six blocks. The text layer labels them "LightGCN MF",
"LightGCN Yelp2018", "LightGCN MF", "LightGCN Gowalla" in Table 5.2 and "Gowalla MF", "Gowalla LightGCN",
"Gowalla MF", "Gowalla LightGCN" in Table 6.3 (and "Gowalla" beside the fifth block, Yahoo!-R3 MF, in
both). Sorted by (i) the order, (ii) Table 6.3's model column (MF / LightGCN alternating, as in every
block above) and Table 5.2's "MF" beside the seventh and ninth blocks, (iii) Table 6.3's InfoNCE, DCL
and HCL rows, which equal Table 5.2's block by block (all ten blocks), and (iv) the test items per
user: Table 5.1 gives 312k / 31,668 = 9.9 for Yelp2018 and 205k / 29,858 = 6.9 for Gowalla
(:data:`TABLE_5_1`), and k x Precision@k / Recall@k (:func:`implied_test_items_per_user`), averaged over
a block's six distinct rows and k = 5, 10, 20, is 8.6 and 8.4 for the seventh and eighth blocks and 5.0
and 5.0 for the ninth and tenth (at k = 5: 8.5, 8.4, 4.9, 4.9; the estimate runs low on sparse data,
as on MovieLens: 15 for 21). Each block is closer to its data set's figure than to the other's (at k = 5
alone the eighth block, 8.35, sits midway: 1.50 from 9.85, 1.48 from 6.87), and the pair with more
test items per user is the pair Table 5.1 gives more (Yelp2018), by a factor 1.7 against 1.4. Within a pair
LightGCN is the higher block (Yelp2018 NDCG@10 0.0644 vs 0.0456 for BPR), as §4.5.2.1 says it
generally is. Table 5.2's Yelp2018 / Gowalla BPR rows are their own numbers (not Table 4.2's, which
prints no Yelp2018 or Gowalla block).
"""

from __future__ import annotations

__all__ = [
    "THESIS",
    "THESIS_BY_DATASET",
    "DATASETS",
    "LARGE_DATASETS",
    "THESIS_LARGE",
    "TABLE_5_1",
    "TABLES_BY_DATASET",
    "mean_test_items",
    "implied_test_items_per_user",
    "thesis_value",
]

#: data set names of ``negtheory reproduce thesis-tables --dataset`` (the keys of :data:`THESIS_BY_DATASET`)
DATASETS = ("ml-100k", "ml-1m", "yahoo-r3", "yelp2018", "gowalla")


def _row(*vals):
    keys = [(m, k) for k in (5, 10, 20) for m in ("precision", "recall", "ndcg")]
    return dict(zip(keys, vals))


THESIS = {
    # Table 4.2: samplers with BPR-MF (SGD), MovieLens-100K
    ("4.2", "RNS", "BPR-MF SGD"): _row(
        0.3900, 0.1301, 0.4143, 0.3363, 0.2164, 0.3967, 0.2724, 0.3298, 0.3962
    ),
    ("4.2", "PNS", "BPR-MF SGD"): _row(
        0.2647, 0.0864, 0.2694, 0.2329, 0.1475, 0.2637, 0.1949, 0.2374, 0.2709
    ),
    ("4.2", "AOBPR", "BPR-MF SGD"): _row(
        0.3970, 0.1375, 0.4186, 0.3308, 0.2165, 0.3942, 0.2700, 0.3369, 0.3980
    ),
    ("4.2", "DNS", "BPR-MF SGD"): _row(
        0.4053, 0.1414, 0.4314, 0.3348, 0.2214, 0.4042, 0.2734, 0.3413, 0.4069
    ),
    ("4.2", "SRNS", "BPR-MF SGD"): _row(
        0.3951, 0.1342, 0.4176, 0.3394, 0.2174, 0.3998, 0.2747, 0.3374, 0.4013
    ),
    ("4.2", "BNS", "BPR-MF SGD"): _row(
        0.4205, 0.1467, 0.4558, 0.3463, 0.2290, 0.4217, 0.2762, 0.3466, 0.4176
    ),
    # Table 4.3: BNS ablations (RNS and BNS repeat Table 4.2; BNS-1 warm start of lambda, BNS-2 warm start of the
    # sample information, BNS-3 uninformative prior 1/1682, BNS-4 occupation-adjusted prior)
    ("4.3", "RNS", "BPR-MF SGD"): _row(
        0.3900, 0.1301, 0.4143, 0.3363, 0.2164, 0.3967, 0.2724, 0.3298, 0.3962
    ),
    ("4.3", "BNS", "BPR-MF SGD"): _row(
        0.4205, 0.1467, 0.4558, 0.3463, 0.2290, 0.4217, 0.2762, 0.3466, 0.4176
    ),
    ("4.3", "BNS-1", "BPR-MF SGD"): _row(
        0.4237, 0.1471, 0.4551, 0.3495, 0.2305, 0.4238, 0.2762, 0.3495, 0.4197
    ),
    ("4.3", "BNS-2", "BPR-MF SGD"): _row(
        0.4148, 0.1456, 0.4449, 0.3411, 0.2245, 0.4132, 0.2738, 0.3434, 0.4125
    ),
    ("4.3", "BNS-3", "BPR-MF SGD"): _row(
        0.4048, 0.1392, 0.4266, 0.3423, 0.2282, 0.4043, 0.2720, 0.3406, 0.4030
    ),
    ("4.3", "BNS-4", "BPR-MF SGD"): _row(
        0.4262, 0.1478, 0.4566, 0.3486, 0.2305, 0.4235, 0.2792, 0.3520, 0.4216
    ),
    # Table 4.4: RNS / BNS under the BPR, BCE and InfoNCE (N = 2) losses, MF (the BPR rows repeat Table 4.2)
    ("4.4", "RNS", "BPR"): _row(
        0.3900, 0.1301, 0.4143, 0.3363, 0.2164, 0.3967, 0.2724, 0.3298, 0.3962
    ),
    ("4.4", "BNS", "BPR"): _row(
        0.4205, 0.1467, 0.4558, 0.3463, 0.2290, 0.4217, 0.2762, 0.3466, 0.4176
    ),
    ("4.4", "RNS", "BCE"): _row(
        0.3917, 0.1329, 0.4107, 0.3339, 0.2187, 0.3923, 0.2696, 0.3315, 0.3928
    ),
    ("4.4", "BNS", "BCE"): _row(
        0.4226, 0.1454, 0.4490, 0.3514, 0.2299, 0.4205, 0.2821, 0.3482, 0.4182
    ),
    ("4.4", "RNS", "InfoNCE"): _row(
        0.3923, 0.1322, 0.4193, 0.3353, 0.2162, 0.3988, 0.2728, 0.3376, 0.4012
    ),
    ("4.4", "BNS", "InfoNCE"): _row(
        0.4241, 0.1471, 0.4523, 0.3519, 0.2281, 0.4226, 0.2817, 0.3467, 0.4195
    ),
    # Table 4.5: BNS with the oracle prior (label - 0.2)^2, lambda = 5, growing |M_u|
    ("4.5", "BNS-oracle", "|M_u|=1"): _row(
        0.3900, 0.1301, 0.4143, 0.3363, 0.2164, 0.3967, 0.2724, 0.3298, 0.3962
    ),
    ("4.5", "BNS-oracle", "|M_u|=3"): _row(
        0.4909, 0.1567, 0.5211, 0.4220, 0.2565, 0.4942, 0.3366, 0.3872, 0.4856
    ),
    ("4.5", "BNS-oracle", "|M_u|=5"): _row(
        0.5109, 0.1612, 0.5422, 0.4329, 0.2602, 0.5092, 0.3456, 0.3925, 0.4992
    ),
    ("4.5", "BNS-oracle", "|M_u|=10"): _row(
        0.5351, 0.1696, 0.5685, 0.4589, 0.2722, 0.5365, 0.3663, 0.4081, 0.5245
    ),
    ("4.5", "BNS-oracle", "|M_u|=20"): _row(
        0.5760, 0.1828, 0.6070, 0.4885, 0.2875, 0.5695, 0.3830, 0.4196, 0.5498
    ),
    ("4.5", "BNS-oracle", "|M_u|=50"): _row(
        0.6239, 0.1989, 0.6599, 0.5252, 0.3049, 0.6146, 0.4031, 0.4312, 0.5843
    ),
    ("4.5", "BNS-oracle", "|M_u|=100"): _row(
        0.6509, 0.2104, 0.6898, 0.5382, 0.3125, 0.6346, 0.4053, 0.4321, 0.5971
    ),
    ("4.5", "BNS-oracle", "|M_u|=500"): _row(
        0.6661, 0.2183, 0.7128, 0.5412, 0.3131, 0.6487, 0.4041, 0.4300, 0.6076
    ),
    ("4.5", "BNS-oracle", "|M_u|=all"): _row(
        0.6674, 0.2184, 0.7133, 0.5429, 0.3140, 0.6495, 0.4041, 0.4292, 0.6073
    ),
    # Table 5.2: pairwise / softmax losses, MF (the BPR row repeats Table 4.2's RNS row)
    ("5.2", "BPR", "MF"): _row(
        0.3900, 0.1301, 0.4143, 0.3363, 0.2164, 0.3967, 0.2724, 0.3298, 0.3962
    ),
    ("5.2", "InfoNCE", "MF"): _row(
        0.4081, 0.1388, 0.4324, 0.3452, 0.2266, 0.4095, 0.2793, 0.3497, 0.4118
    ),
    ("5.2", "DCL", "MF"): _row(
        0.4168, 0.1434, 0.4458, 0.3513, 0.2291, 0.4202, 0.2835, 0.3546, 0.4207
    ),
    ("5.2", "HCL", "MF"): _row(
        0.4263, 0.1463, 0.4539, 0.3565, 0.2323, 0.4260, 0.2849, 0.3564, 0.4242
    ),
    ("5.2", "DPL", "MF"): _row(
        0.4348, 0.1523, 0.4643, 0.3635, 0.2379, 0.4356, 0.2914, 0.3588, 0.4338
    ),
    # Table 6.3: contrastive losses, MF (InfoNCE, DCL, HCL repeat Table 5.2)
    ("6.3", "InfoNCE", "MF"): _row(
        0.4081, 0.1388, 0.4324, 0.3452, 0.2266, 0.4095, 0.2793, 0.3497, 0.4118
    ),
    ("6.3", "DCL", "MF"): _row(
        0.4168, 0.1434, 0.4458, 0.3513, 0.2291, 0.4202, 0.2835, 0.3546, 0.4207
    ),
    ("6.3", "HCL", "MF"): _row(
        0.4263, 0.1463, 0.4539, 0.3565, 0.2323, 0.4260, 0.2849, 0.3564, 0.4242
    ),
    ("6.3", "BCL", "MF"): _row(
        0.4374, 0.1552, 0.4674, 0.3658, 0.2405, 0.4380, 0.2931, 0.3588, 0.4357
    ),
    # Table 5.3: DPL against negative sampling, MF (BPR, BNS and DPL repeat Tables 4.2 and 5.2);
    # "DPL with Hard Samples" with tau+ = 0.3 (§5.6.2.3)
    ("5.3", "BPR", "MF"): _row(
        0.3900, 0.1301, 0.4143, 0.3363, 0.2164, 0.3967, 0.2724, 0.3298, 0.3962
    ),
    ("5.3", "BNS", "MF"): _row(
        0.4205, 0.1467, 0.4558, 0.3463, 0.2290, 0.4217, 0.2762, 0.3466, 0.4176
    ),
    ("5.3", "DPL", "MF"): _row(
        0.4348, 0.1523, 0.4643, 0.3635, 0.2379, 0.4356, 0.2914, 0.3588, 0.4338
    ),
    ("5.3", "DPL-hard", "MF"): _row(
        0.4401, 0.1579, 0.4692, 0.3713, 0.2407, 0.4395, 0.2940, 0.3592, 0.4351
    ),
    # LightGCN, the second block of Tables 4.2, 5.2 and 6.3 (module notes; the text layer labels it MovieLens-1M)
    ("4.2", "RNS", "LightGCN"): _row(
        0.3944, 0.1231, 0.4204, 0.3346, 0.2189, 0.4017, 0.2658, 0.3281, 0.3986
    ),
    ("4.2", "PNS", "LightGCN"): _row(
        0.3527, 0.1266, 0.3816, 0.3015, 0.2117, 0.3660, 0.2461, 0.3306, 0.3742
    ),
    ("4.2", "AOBPR", "LightGCN"): _row(
        0.3911, 0.1407, 0.4200, 0.3315, 0.2276, 0.4007, 0.2680, 0.3505, 0.4064
    ),
    ("4.2", "DNS", "LightGCN"): _row(
        0.4278, 0.1475, 0.4590, 0.3612, 0.2336, 0.4331, 0.2917, 0.3595, 0.4335
    ),
    ("4.2", "SRNS", "LightGCN"): _row(
        0.4195, 0.1440, 0.4509, 0.3564, 0.2333, 0.4275, 0.2834, 0.3520, 0.4244
    ),
    ("4.2", "BNS", "LightGCN"): _row(
        0.4318, 0.1518, 0.4640, 0.3671, 0.2410, 0.4368, 0.2875, 0.3608, 0.4383
    ),
    ("5.2", "BPR", "LightGCN"): _row(
        0.3944, 0.1231, 0.4204, 0.3346, 0.2189, 0.4017, 0.2658, 0.3281, 0.3986
    ),
    ("5.2", "InfoNCE", "LightGCN"): _row(
        0.3924, 0.1343, 0.4209, 0.3349, 0.2183, 0.4006, 0.2679, 0.3289, 0.3976
    ),
    ("5.2", "DCL", "LightGCN"): _row(
        0.3962, 0.1367, 0.4243, 0.3361, 0.2194, 0.4022, 0.2695, 0.3329, 0.4006
    ),
    ("5.2", "HCL", "LightGCN"): _row(
        0.4197, 0.1461, 0.4501, 0.3458, 0.2256, 0.4188, 0.2802, 0.3446, 0.4182
    ),
    ("5.2", "DPL", "LightGCN"): _row(
        0.4333, 0.1486, 0.4627, 0.3596, 0.2344, 0.4324, 0.2919, 0.3585, 0.4331
    ),
    ("6.3", "InfoNCE", "LightGCN"): _row(
        0.3924, 0.1343, 0.4209, 0.3349, 0.2183, 0.4006, 0.2679, 0.3289, 0.3976
    ),
    ("6.3", "DCL", "LightGCN"): _row(
        0.3962, 0.1367, 0.4243, 0.3361, 0.2194, 0.4022, 0.2695, 0.3329, 0.4006
    ),
    ("6.3", "HCL", "LightGCN"): _row(
        0.4197, 0.1461, 0.4501, 0.3458, 0.2256, 0.4188, 0.2802, 0.3446, 0.4182
    ),
    ("6.3", "BCL", "LightGCN"): _row(
        0.4366, 0.1512, 0.4652, 0.3626, 0.2367, 0.4351, 0.2936, 0.3599, 0.4347
    ),
}

#: MovieLens-1M, MF: the third block of Tables 4.2, 5.2 and 6.3 (Table 5.3 prints its BPR / BNS / DPL rows)
THESIS_ML1M = {
    ("4.2", "RNS", "BPR-MF SGD"): _row(
        0.3843, 0.0855, 0.4027, 0.3353, 0.1430, 0.3737, 0.2798, 0.2244, 0.3572
    ),
    ("4.2", "PNS", "BPR-MF SGD"): _row(
        0.3461, 0.0753, 0.3634, 0.3004, 0.1250, 0.3356, 0.2502, 0.1979, 0.3192
    ),
    ("4.2", "AOBPR", "BPR-MF SGD"): _row(
        0.3946, 0.0954, 0.4135, 0.3416, 0.1549, 0.3837, 0.2857, 0.2442, 0.3714
    ),
    ("4.2", "DNS", "BPR-MF SGD"): _row(
        0.4066, 0.0991, 0.4272, 0.3521, 0.1620, 0.3965, 0.2945, 0.2537, 0.3838
    ),
    ("4.2", "SRNS", "BPR-MF SGD"): _row(
        0.3955, 0.0934, 0.4225, 0.3408, 0.1609, 0.4042, 0.2779, 0.2431, 0.3974
    ),
    ("4.2", "BNS", "BPR-MF SGD"): _row(
        0.4207, 0.1062, 0.4324, 0.3518, 0.1703, 0.4191, 0.3045, 0.2614, 0.4002
    ),
    ("5.2", "BPR", "MF"): _row(
        0.3843, 0.0855, 0.4027, 0.3353, 0.1430, 0.3737, 0.2798, 0.2244, 0.3572
    ),
    ("5.2", "InfoNCE", "MF"): _row(
        0.3820, 0.0879, 0.4003, 0.3339, 0.1478, 0.3728, 0.2821, 0.2358, 0.3605
    ),
    ("5.2", "DCL", "MF"): _row(
        0.4009, 0.0934, 0.4209, 0.3472, 0.1546, 0.3894, 0.2890, 0.2423, 0.3731
    ),
    ("5.2", "HCL", "MF"): _row(
        0.4112, 0.0969, 0.4317, 0.3552, 0.1585, 0.3991, 0.2959, 0.2475, 0.3825
    ),
    ("5.2", "DPL", "MF"): _row(
        0.4212, 0.0998, 0.4407, 0.3624, 0.1625, 0.4071, 0.2991, 0.2518, 0.3891
    ),
    ("6.3", "InfoNCE", "MF"): _row(
        0.3820, 0.0879, 0.4003, 0.3339, 0.1478, 0.3728, 0.2821, 0.2358, 0.3605
    ),
    ("6.3", "DCL", "MF"): _row(
        0.4009, 0.0934, 0.4209, 0.3472, 0.1546, 0.3894, 0.2890, 0.2423, 0.3731
    ),
    ("6.3", "HCL", "MF"): _row(
        0.4112, 0.0969, 0.4317, 0.3552, 0.1585, 0.3991, 0.2959, 0.2475, 0.3825
    ),
    ("6.3", "BCL", "MF"): _row(
        0.4249, 0.1041, 0.4439, 0.3652, 0.1657, 0.4101, 0.3012, 0.2537, 0.3920
    ),
    # Table 5.3 (its MovieLens-1M block; "DPL with Hard Samples" with tau+ = 0.25, §5.6.2.3)
    ("5.3", "BPR", "MF"): _row(
        0.3843, 0.0855, 0.4027, 0.3353, 0.1430, 0.3737, 0.2798, 0.2244, 0.3572
    ),
    ("5.3", "BNS", "MF"): _row(
        0.4207, 0.1062, 0.4324, 0.3518, 0.1703, 0.4191, 0.3045, 0.2614, 0.4002
    ),
    ("5.3", "DPL", "MF"): _row(
        0.4212, 0.0998, 0.4407, 0.3624, 0.1625, 0.4071, 0.2991, 0.2518, 0.3891
    ),
    ("5.3", "DPL-hard", "MF"): _row(
        0.4251, 0.1012, 0.4412, 0.3649, 0.1701, 0.4151, 0.3012, 0.2539, 0.3922
    ),
}

#: Yahoo!-R3, MF: the fifth block of Tables 4.2, 5.2 and 6.3
THESIS_YAHOO = {
    ("4.2", "RNS", "BPR-MF SGD"): _row(
        0.1196, 0.0875, 0.1326, 0.0935, 0.1367, 0.1401, 0.0695, 0.2015, 0.1665
    ),
    ("4.2", "PNS", "BPR-MF SGD"): _row(
        0.1186, 0.0876, 0.1301, 0.0927, 0.1360, 0.1378, 0.0688, 0.2011, 0.1644
    ),
    ("4.2", "AOBPR", "BPR-MF SGD"): _row(
        0.1012, 0.0741, 0.1115, 0.0798, 0.1165, 0.1184, 0.0607, 0.1778, 0.1443
    ),
    ("4.2", "DNS", "BPR-MF SGD"): _row(
        0.1251, 0.0917, 0.1390, 0.0957, 0.1399, 0.1449, 0.0697, 0.2020, 0.1697
    ),
    ("4.2", "SRNS", "BPR-MF SGD"): _row(
        0.1141, 0.0855, 0.1285, 0.0904, 0.1358, 0.1383, 0.0678, 0.2025, 0.1655
    ),
    ("4.2", "BNS", "BPR-MF SGD"): _row(
        0.1303, 0.0975, 0.1470, 0.1002, 0.1485, 0.1542, 0.0711, 0.2094, 0.1783
    ),
    ("5.2", "BPR", "MF"): _row(
        0.1417, 0.1052, 0.1587, 0.1064, 0.1573, 0.1641, 0.0768, 0.2259, 0.1913
    ),
    ("5.2", "InfoNCE", "MF"): _row(
        0.1429, 0.1065, 0.1615, 0.1080, 0.1601, 0.1664, 0.0786, 0.2316, 0.1952
    ),
    ("5.2", "DCL", "MF"): _row(
        0.1454, 0.1083, 0.1635, 0.1091, 0.1618, 0.1692, 0.0790, 0.2327, 0.1974
    ),
    ("5.2", "HCL", "MF"): _row(
        0.1460, 0.1097, 0.1638, 0.1096, 0.1628, 0.1697, 0.0792, 0.2336, 0.1976
    ),
    ("5.2", "DPL", "MF"): _row(
        0.1491, 0.1091, 0.1652, 0.1108, 0.1641, 0.1712, 0.0801, 0.2351, 0.2012
    ),
    ("6.3", "InfoNCE", "MF"): _row(
        0.1429, 0.1065, 0.1615, 0.1080, 0.1601, 0.1664, 0.0786, 0.2316, 0.1952
    ),
    ("6.3", "DCL", "MF"): _row(
        0.1454, 0.1083, 0.1635, 0.1091, 0.1618, 0.1692, 0.0790, 0.2327, 0.1974
    ),
    ("6.3", "HCL", "MF"): _row(
        0.1460, 0.1097, 0.1638, 0.1096, 0.1628, 0.1697, 0.0792, 0.2336, 0.1976
    ),
    ("6.3", "BCL", "MF"): _row(
        0.1529, 0.1122, 0.1685, 0.1124, 0.1667, 0.1736, 0.0815, 0.2367, 0.2029
    ),
}

#: Yelp2018, MF and LightGCN: the seventh and eighth blocks of Tables 5.2 and 6.3 (module notes)
THESIS_YELP2018 = {
    ("5.2", "BPR", "MF"): _row(
        0.0398, 0.0228, 0.0435, 0.0339, 0.0389, 0.0456, 0.0284, 0.0650, 0.0538
    ),
    ("5.2", "InfoNCE", "MF"): _row(
        0.0429, 0.0246, 0.0470, 0.0365, 0.0417, 0.0491, 0.0305, 0.0700, 0.0580
    ),
    ("5.2", "DCL", "MF"): _row(
        0.0486, 0.0278, 0.0531, 0.0410, 0.0466, 0.0552, 0.0342, 0.0777, 0.0648
    ),
    ("5.2", "HCL", "MF"): _row(
        0.0515, 0.0305, 0.0566, 0.0459, 0.0541, 0.0622, 0.0383, 0.0894, 0.0736
    ),
    ("5.2", "DPL", "MF"): _row(
        0.0543, 0.0325, 0.0595, 0.0463, 0.0551, 0.0630, 0.0389, 0.0914, 0.0749
    ),
    ("5.2", "BPR", "LightGCN"): _row(
        0.0556, 0.0330, 0.0610, 0.0473, 0.0560, 0.0644, 0.0391, 0.0914, 0.0757
    ),
    ("5.2", "InfoNCE", "LightGCN"): _row(
        0.0553, 0.0329, 0.0607, 0.0473, 0.0558, 0.0642, 0.0390, 0.0911, 0.0754
    ),
    ("5.2", "DCL", "LightGCN"): _row(
        0.0559, 0.0331, 0.0612, 0.0472, 0.0557, 0.0642, 0.0391, 0.0914, 0.0756
    ),
    ("5.2", "HCL", "LightGCN"): _row(
        0.0563, 0.0335, 0.0617, 0.0477, 0.0564, 0.0648, 0.0393, 0.0920, 0.0760
    ),
    ("5.2", "DPL", "LightGCN"): _row(
        0.0604, 0.0364, 0.0657, 0.0513, 0.0615, 0.0696, 0.0423, 0.1003, 0.0821
    ),
    ("6.3", "InfoNCE", "MF"): _row(
        0.0429, 0.0246, 0.0470, 0.0365, 0.0417, 0.0491, 0.0305, 0.0700, 0.0580
    ),
    ("6.3", "DCL", "MF"): _row(
        0.0486, 0.0278, 0.0531, 0.0410, 0.0466, 0.0552, 0.0342, 0.0777, 0.0648
    ),
    ("6.3", "HCL", "MF"): _row(
        0.0515, 0.0305, 0.0566, 0.0459, 0.0541, 0.0622, 0.0383, 0.0894, 0.0736
    ),
    ("6.3", "BCL", "MF"): _row(
        0.0546, 0.0342, 0.0595, 0.0475, 0.0563, 0.0643, 0.0398, 0.0912, 0.0752
    ),
    ("6.3", "InfoNCE", "LightGCN"): _row(
        0.0553, 0.0329, 0.0607, 0.0473, 0.0558, 0.0642, 0.0390, 0.0911, 0.0754
    ),
    ("6.3", "DCL", "LightGCN"): _row(
        0.0559, 0.0331, 0.0612, 0.0472, 0.0557, 0.0642, 0.0391, 0.0914, 0.0756
    ),
    ("6.3", "HCL", "LightGCN"): _row(
        0.0563, 0.0335, 0.0617, 0.0477, 0.0564, 0.0648, 0.0393, 0.0920, 0.0760
    ),
    ("6.3", "BCL", "LightGCN"): _row(
        0.0612, 0.0376, 0.0670, 0.0524, 0.0629, 0.0701, 0.0414, 0.1014, 0.0815
    ),
}

#: Gowalla, MF and LightGCN: the ninth and tenth blocks of Tables 5.2 and 6.3 (module notes)
THESIS_GOWALLA = {
    ("5.2", "BPR", "MF"): _row(
        0.0728, 0.0748, 0.1000, 0.0555, 0.1116, 0.1063, 0.0414, 0.1625, 0.1209
    ),
    ("5.2", "InfoNCE", "MF"): _row(
        0.0739, 0.0757, 0.1016, 0.0560, 0.1122, 0.1076, 0.0422, 0.1650, 0.1230
    ),
    ("5.2", "DCL", "MF"): _row(
        0.0746, 0.0769, 0.1023, 0.0568, 0.1147, 0.1088, 0.0426, 0.1664, 0.1238
    ),
    ("5.2", "HCL", "MF"): _row(
        0.0755, 0.0774, 0.1035, 0.0574, 0.1151, 0.1098, 0.0432, 0.1693, 0.1256
    ),
    ("5.2", "DPL", "MF"): _row(
        0.0815, 0.0827, 0.1100, 0.0628, 0.1243, 0.1174, 0.0473, 0.1815, 0.1340
    ),
    ("5.2", "BPR", "LightGCN"): _row(
        0.0735, 0.0753, 0.1007, 0.0560, 0.1119, 0.1069, 0.0419, 0.1641, 0.1218
    ),
    ("5.2", "InfoNCE", "LightGCN"): _row(
        0.0743, 0.0760, 0.1022, 0.0566, 0.1132, 0.1084, 0.0423, 0.1649, 0.1231
    ),
    ("5.2", "DCL", "LightGCN"): _row(
        0.0748, 0.0763, 0.1027, 0.0569, 0.1132, 0.1088, 0.0424, 0.1656, 0.1236
    ),
    ("5.2", "HCL", "LightGCN"): _row(
        0.0794, 0.0804, 0.1084, 0.0608, 0.1199, 0.1147, 0.0453, 0.1740, 0.1319
    ),
    ("5.2", "DPL", "LightGCN"): _row(
        0.0867, 0.0891, 0.1164, 0.0662, 0.1329, 0.1242, 0.0494, 0.1936, 0.1417
    ),
    ("6.3", "InfoNCE", "MF"): _row(
        0.0739, 0.0757, 0.1016, 0.0560, 0.1122, 0.1076, 0.0422, 0.1650, 0.1230
    ),
    ("6.3", "DCL", "MF"): _row(
        0.0746, 0.0769, 0.1023, 0.0568, 0.1147, 0.1088, 0.0426, 0.1664, 0.1238
    ),
    ("6.3", "HCL", "MF"): _row(
        0.0755, 0.0774, 0.1035, 0.0574, 0.1151, 0.1098, 0.0432, 0.1693, 0.1256
    ),
    ("6.3", "BCL", "MF"): _row(
        0.0827, 0.0837, 0.1121, 0.0639, 0.1257, 0.1186, 0.0485, 0.1824, 0.1353
    ),
    ("6.3", "InfoNCE", "LightGCN"): _row(
        0.0743, 0.0760, 0.1022, 0.0566, 0.1132, 0.1084, 0.0423, 0.1649, 0.1231
    ),
    ("6.3", "DCL", "LightGCN"): _row(
        0.0748, 0.0763, 0.1027, 0.0569, 0.1132, 0.1088, 0.0424, 0.1656, 0.1236
    ),
    ("6.3", "HCL", "LightGCN"): _row(
        0.0794, 0.0804, 0.1084, 0.0608, 0.1199, 0.1147, 0.0453, 0.1740, 0.1319
    ),
    ("6.3", "BCL", "LightGCN"): _row(
        0.0863, 0.0893, 0.1156, 0.0670, 0.1332, 0.1248, 0.0490, 0.1937, 0.1420
    ),
}

#: the data sets printed in Tables 5.2 and 6.3 only
LARGE_DATASETS = ("yelp2018", "gowalla")
#: data set name -> its printed rows, for :data:`LARGE_DATASETS`
THESIS_LARGE = {"yelp2018": THESIS_YELP2018, "gowalla": THESIS_GOWALLA}
#: data set name -> its printed rows, every data set of :data:`DATASETS`
THESIS_BY_DATASET = {
    "ml-100k": THESIS,
    "ml-1m": THESIS_ML1M,
    "yahoo-r3": THESIS_YAHOO,
    **THESIS_LARGE,
}
#: data set name -> the tables ``thesis-tables`` runs on it (its default ``--tables`` and the only ones it
#: accepts): every table on the three smaller data sets (the thesis column is empty where nothing is printed),
#: Tables 5.2 and 6.3 on Yelp2018 and Gowalla (the thesis prints no other table for them)
_ALL_TABLES = ("4.2", "4.3", "4.4", "4.5", "5.2", "5.3", "6.3")
TABLES_BY_DATASET = {
    "ml-100k": _ALL_TABLES,
    "ml-1m": _ALL_TABLES,
    "yahoo-r3": _ALL_TABLES,
    "yelp2018": ("5.2", "6.3"),
    "gowalla": ("5.2", "6.3"),
}

#: Table 5.1 as printed: users, items, interactions, train and test interactions (the printed "80k" etc.),
#: density. Checked: density = interactions / (users x items) to the printed digits, and test = 20 % of the
#: interactions to the printed "k" (train + test is 1,026k for Gowalla's 1,027,370: rounding of the "k" cells).
#: Table 4.1 prints the same users, items, train and test for the three smaller data sets. Yelp2018's and
#: Gowalla's counts are those of the LightGCN release's files.
TABLE_5_1 = {
    "ml-100k": dict(
        users=943, items=1682, interactions=100_000, train=80_000, test=20_000, density=0.06304
    ),
    "ml-1m": dict(
        users=6040, items=3952, interactions=1_000_000, train=800_000, test=200_000, density=0.04189
    ),
    "yahoo-r3": dict(
        users=5400, items=1000, interactions=182_000, train=146_000, test=36_000, density=0.03370
    ),
    "yelp2018": dict(
        users=31_668,
        items=38_048,
        interactions=1_561_406,
        train=1_249_000,
        test=312_000,
        density=0.00130,
    ),
    "gowalla": dict(
        users=29_858,
        items=40_981,
        interactions=1_027_370,
        train=821_000,
        test=205_000,
        density=0.00084,
    ),
}


def mean_test_items(dataset: str) -> float:
    """Mean test items per user from Table 5.1: printed test interactions / users.

    Parameters
    ----------
    dataset : str
        A key of :data:`TABLE_5_1`.

    Returns
    -------
    float
        e.g. 9.85 for Yelp2018 and 6.87 for Gowalla.

    Raises
    ------
    ValueError
        ``dataset`` is not a key of :data:`TABLE_5_1`.

    Examples
    --------
    >>> from negtheory.reproduce.thesis_numbers import mean_test_items
    >>> round(mean_test_items("gowalla"), 2)
    6.87
    """
    if dataset not in TABLE_5_1:
        raise ValueError(f"dataset must be one of {', '.join(TABLE_5_1)}, got {dataset!r}")
    s = TABLE_5_1[dataset]
    return s["test"] / s["users"]


def implied_test_items_per_user(rows, k: int = 5) -> float:
    """The test items per user a block of printed rows implies: the mean over its rows of k x P@k / R@k.

    With ``h_u`` hits in a user's top k and ``T_u`` test items, P@k = mean h_u / k and R@k = mean
    h_u / T_u, so k P@k / R@k is a hit-weighted mean of T_u; it runs below the plain mean when T_u
    varies a lot across users (sparse data).

    Parameters
    ----------
    rows : iterable of mapping
        Printed rows, ``{(metric, k): value}`` (values of :data:`THESIS_BY_DATASET` etc.).
    k : int
        The list length, 5, 10 or 20 (default 5).

    Returns
    -------
    float
        The mean of k P@k / R@k over the rows.

    Raises
    ------
    ValueError
        ``k`` is not 5, 10 or 20, or ``rows`` is empty.
    """
    if k not in (5, 10, 20):
        raise ValueError(f"k must be 5, 10 or 20, got {k!r}")
    vals = [k * r[("precision", k)] / r[("recall", k)] for r in rows]
    if not vals:
        raise ValueError("rows must hold at least one printed row")
    return sum(vals) / len(vals)


def thesis_value(
    table: str, method: str, setting: str, metric: str, k: int, dataset: str = "ml-100k"
) -> float:
    """The printed value of one cell of a thesis table, or NaN when the thesis has no such cell.

    Parameters
    ----------
    table : str
        The table number, ``"4.2"``, ``"4.3"``, ``"4.4"``, ``"4.5"``, ``"5.2"``, ``"5.3"`` or ``"6.3"``.
    method : str
        The row's method as printed (e.g. ``"BNS"``, ``"BNS-oracle"``, ``"InfoNCE"``).
    setting : str
        The row's setting (``"BPR-MF SGD"`` for Tables 4.2 and 4.3, the loss ``"BPR"``, ``"BCE"`` or
        ``"InfoNCE"`` for Table 4.4, ``"|M_u|=5"`` etc. for Table 4.5,
        ``"MF"`` for Tables 5.2 and 6.3, ``"LightGCN"`` for the LightGCN rows of Tables 4.2, 5.2
        and 6.3, printed for MovieLens-100K here).
    metric : {"precision", "recall", "ndcg"}
        The metric.
    k : int
        The list length, 5, 10 or 20.
    dataset : str
        One of :data:`DATASETS` (default ``"ml-100k"``).

    Returns
    -------
    float
        The printed number, NaN for a cell the thesis does not print.

    Raises
    ------
    ValueError
        ``dataset`` is not one of :data:`DATASETS`.

    Examples
    --------
    >>> from negtheory.reproduce.thesis_numbers import thesis_value
    >>> thesis_value("4.2", "BNS", "BPR-MF SGD", "ndcg", 10, dataset="ml-1m")
    0.4191
    >>> thesis_value("4.5", "BNS-oracle", "|M_u|=3", "ndcg", 10, dataset="yahoo-r3")
    nan
    >>> thesis_value("6.3", "BCL", "LightGCN", "ndcg", 10)
    0.4351
    """
    if dataset not in THESIS_BY_DATASET:
        raise ValueError(f"dataset must be one of {', '.join(DATASETS)}, got {dataset!r}")
    return (
        THESIS_BY_DATASET[dataset]
        .get((table, method, setting), {})
        .get((metric, int(k)), float("nan"))
    )
