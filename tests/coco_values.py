"""Reference values from the COCO caption toolkit, shared by the BLEU, ROUGE-L and CIDEr tests.

Produced once with pycocoevalcap 1.2 (its PTBTokenizer jar run under Java 17, then ``Bleu(4)``, ``Rouge()`` and
``Cider()`` over these 16 rows as one corpus; per-row values are COCO's per-image scores). Neither Java nor
pycocoevalcap is needed to run the tests.
"""
from __future__ import annotations

# (candidate, references, (BLEU-1, BLEU-2, BLEU-3, BLEU-4), ROUGE-L, CIDEr)
COCO_ROWS = [
    ('The cat sat on the mat.', ['The cat is sitting on the mat.'],
     (0.7054014371737114, 0.5985529676111455, 0.42324086228776764, 6.800874736195394e-05), 0.7587064676616916, 2.987281724733728),
    ("He didn't think it was worth the effort.", ['he did not think it was worth the effort', "He isn't worth the effort."],
     (0.9999999997777782, 0.8660254035859749, 0.7539474409501415, 0.6803749331487142), 0.8888888888888888, 4.791167731882542),
    ('It costs $5.50 (about 5%) in 2019.', ['The price is $5.50, roughly 5% more than in 2018.'],
     (0.4150457800528383, 0.27531022464987626, 1.973817303247628e-06, 5.4429881395996835e-09), 0.4314002828854314, 1.586974843455566),
    ('the dimensions of an average tub is 60 inches long,32 inches wide and 18 inches tall .', ['the standard size of a bathtub is 60 inches long, 32 inches wide and 18 inches tall.'],
     (0.7058823528581315, 0.5940885257150198, 0.5206998350028794, 0.4481501735486609), 0.7058823529411764, 4.891647004605194),
    ('frolic in brine', ['frolic in brine, goblins be thine', 'frolic in brine, goblins be thine'],
     (0.3678794409261896, 0.367879440895533, 0.367879440824001, 0.011633369375307054), 0.6288659793814433, 3.9632078577450502),
    ('The U.S. capital is Washington, D.C.', ['Washington, D.C. is the capital of the U.S.', "It's Washington D.C."],
     (0.9999999998333334, 0.6324555319177259, 4.641588832658679e-06, 1.3512001544861246e-08), 0.4149659863945578, 2.5336521667346537),
    ('yes', ['Yes, it is.', 'no'],
     (0.999999998000002, 0.0009999999985000015, 9.999999986666685e-05, 3.162277656215536e-05), 0.45864661654135336, 0.8798585711793101),
    ("I can't, won't, and cannot go; we're gonna stay.", ['We are going to stay, I cannot go.'],
     (0.42857142854081637, 0.2567762954875012, 0.1764586168093624, 2.6584835764514756e-05), 0.3620178041543027, 1.3979534361616144),
    ("Dr. Smith's well-known e-mail is smith@example.com.", ["Mr. Smith's e-mail address: smith@example.com"],
     (0.5714285713469389, 0.3086066998764235, 2.670629029643745e-06, 8.30701847283545e-09), 0.6240409207161125, 2.0167105068935225),
    ('sand , sand , and sand', ['sand', 'sand dunes'],
     (0.24999999993750027, 9.128709289090234e-09, 3.466806370501277e-11, 2.540663739449812e-12), 0.4485294117647059, 0.6132412395807729),
    ('"Horse whisperer" -- a trainer...', ['a horse whisperer.', '"horse whisperer"'],
     (0.7499999998125002, 0.499999999854167, 4.999999998194451e-06, 1.8803015455638737e-08), 0.7093023255813954, 3.1446858550344925),
    ('the the the the the the the', ['the cat is on the mat', 'there is a cat on the mat'],
     (0.2857142856326532, 6.900655591369778e-09, 2.119679665233836e-11, 1.2421889947162098e-12), 0.31202046035805625, 0.1826044365963514),
    ('Take 2-3 tablets every 4-6 hours (max. 12/day).', ['Take two to three tablets every four to six hours, up to 12 a day.'],
     (0.242612263836531, 0.12786789033481283, 1.0742250047982463e-06, 3.2192901639779317e-09), 0.30886075949367087, 0.7220628476599984),
    ('Albert Einstein was born in Ulm, Germany, on 14 March 1879.', ['Einstein was born on March 14, 1879 in Ulm.', 'In Ulm, Germany.', 'Ulm'],
     (0.9090909090082646, 0.6030226890979661, 0.43233287812182764, 5.637560314657452e-05), 0.745417515274949, 1.5704491086852943),
    ("you'll need 1,000 mg/day of calcium", ['Adults need 1,000 mg of calcium per day.', '1000 mg a day'],
     (0.4953587997157158, 0.3783365326387855, 2.916854919591025e-06, 8.563683463576291e-09), 0.5269978401727862, 0.9944374690832724),
    ("Yes, the 1990s' films weren't bad (mostly).", ["The films of the '90s were not bad.", 'yes'],
     (0.4999999999500001, 7.453559924212536e-09, 1.907857070708472e-11, 9.98009940267863e-13), 0.6192893401015228, 0.6765141498442175),
]

#: COCO's corpus BLEU-1..4 over the 16 rows
COCO_CORPUS_BLEU = [0.6299212598375596, 0.4392594385587174, 0.3112342692763771, 0.2259273523587766]
