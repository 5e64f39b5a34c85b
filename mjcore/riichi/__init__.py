"""Riichi (Japanese) mahjong's own rules: the options and presets (``rules``), dora (``dora``),
scoring of one hand (``scoring``) and of many (``batch_scoring``), and the referee of one hand
(``round``). What both games share (tiles, hands, shanten, waits, ukeire, decomposition, the batch
machinery and errors) lives at the top of ``mjcore``.
"""
