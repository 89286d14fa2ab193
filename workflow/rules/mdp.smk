# Rules for the 'mdp' paper (mdp-design.txt).
# Its issue has not landed yet: the aggregate target 'mdp' is empty until it does.
