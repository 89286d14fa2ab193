# Rules for the 'sem' paper (sem-encoding.txt).
# Its issue has not landed yet: the aggregate target 'sem' is empty until it does.
