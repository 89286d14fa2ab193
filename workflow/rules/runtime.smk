# Rules for the runtime-prediction paper (runtime-prediction.txt; brief beside it).
